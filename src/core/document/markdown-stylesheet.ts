/**
 * The default page of a Markdown document: readable type, GitHub-like tables, quotes and code, and
 * print rules that keep headings with what follows and rows, figures and code blocks whole. A table
 * is fitted to the page, never scrolled: a capture and a sheet of paper have no scroll bar, and a
 * table as wide as its longest cells was cut at the right margin (and a table wider than the page
 * would shrink the whole document). Its cells break lines between words, and code and links (long
 * identifiers, URLs) anywhere, a column 5em wide at least; a table of seven columns or more
 * breaks anywhere, with less padding.
 */
export const MARKDOWN_STYLESHEET = `
*,*::before,*::after{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;color:#1f2328;background:#fff;font:16px/1.6 -apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans","Liberation Sans","DejaVu Sans",Helvetica,Arial,sans-serif,"Noto Color Emoji"}
.markdown-body{max-width:880px;margin:0 auto;padding:32px 40px;word-wrap:break-word}
.markdown-body>:first-child{margin-top:0}
h1,h2,h3,h4,h5,h6{margin:1.5em 0 .6em;font-weight:600;line-height:1.25}
h1{font-size:2em;padding-bottom:.3em;border-bottom:1px solid #d1d9e0}
h2{font-size:1.5em;padding-bottom:.3em;border-bottom:1px solid #d1d9e0}
h3{font-size:1.25em}h4{font-size:1em}h5{font-size:.875em}h6{font-size:.85em;color:#59636e}
p,ul,ol,dl,table,pre,blockquote{margin:0 0 1em}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
ul,ol{padding-left:2em}li+li{margin-top:.25em}
li:has(>input[type=checkbox]){list-style:none}li>input[type=checkbox]{margin:0 .4em 0 -1.4em;vertical-align:middle}
blockquote{padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}
hr{height:.25em;margin:1.5em 0;border:0;background:#d1d9e0}
img{max-width:100%}
code,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono","DejaVu Sans Mono",monospace;font-size:85%}
:not(pre)>code{padding:.2em .4em;border-radius:6px;background:#eff1f3}
pre{padding:16px;overflow:auto;line-height:1.45;border-radius:6px;background:#f6f8fa}
pre code.hljs{padding:0;background:transparent}
table{max-width:100%;border-spacing:0;border-collapse:collapse}
th,td{min-width:5em;padding:6px 13px;border:1px solid #d1d9e0}
td code,td a{overflow-wrap:anywhere}
table:has(th:nth-child(7)) :is(th,td){min-width:0;padding:4px 6px;overflow-wrap:anywhere}
th{font-weight:600;background:#f6f8fa}
tr:nth-child(2n) td{background:#f6f8fa}
@media print{
  .markdown-body{max-width:none;padding:0}
  h1,h2,h3,h4,h5,h6{break-after:avoid}
  tr,img,pre,blockquote{break-inside:avoid}
  pre{white-space:pre-wrap}
}
`;
