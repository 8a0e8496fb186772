import type { Handler } from '../helpers/fixture-server.js';

/** A page as a writer publishes it: site navigation, an article with its own h1, a footer. */
export const ARTICLE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pruning apple trees | Orchard Notes</title></head><body>
<header><nav><a href="/">Home</a> <a href="/about">About us</a> <a href="/shop">Shop</a></nav></header>
<main><article>
<h1>Pruning apple trees</h1>
<p>Winter is the time to prune an apple tree, while it sleeps. A tree pruned in winter grows back with vigour in spring, and the cuts heal before the sap rises. This guide walks through the cuts, the tools and the mistakes that cost a season of fruit.</p>
<p>Start with the dead, the diseased and the damaged wood: cut each back to healthy growth, just above an outward-facing bud. Then open the centre of the tree so light and air reach every branch, which keeps scab and canker away and ripens the fruit evenly.</p>
<h2>Tools</h2>
<p>A sharp pair of bypass secateurs handles shoots up to a finger's width; a pruning saw takes the rest. Clean the blades between trees with alcohol so no disease travels from one tree to the next, and oil them when the day is done.</p>
<p>See the <a href="../guides/tools.html">tool guide</a> for what to buy, and <img src="/img/cut.png" alt="a clean cut"> how a clean cut looks.</p>
</article></main>
<footer><p>Copyright Orchard Notes. <a href="/privacy">Privacy</a></p></footer>
</body></html>`;

/** GitHub-flavoured Markdown's constructs, as a page writes them in HTML. */
export const CONSTRUCTS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Constructs</title>
<style>.gone{display:none}</style><script>window.ignored = 1;</script></head><body>
<h1>Constructs</h1>
<table><thead><tr><th>Fruit</th><th>Colour</th></tr></thead><tbody><tr><td>Apple</td><td>Red</td></tr><tr><td>Pear</td><td>Green</td></tr></tbody></table>
<ul><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li><li>Nuts</li></ul>
<ul><li><input type="checkbox" checked disabled> picked</li><li><input type="checkbox" disabled> washed</li></ul>
<pre class="lang-python"><code>def ripe(fruit):
    return fruit.soft</code></pre>
<pre><code class="language-js">const ripe = (fruit) =&gt; fruit.soft;</code></pre>
<p>Read <a href="next/page.html">the next page</a> and <a href="#top">the top</a>.</p>
<p class="gone">Hidden text</p>
<p id="hide-me">Hidden by the caller</p>
</body></html>`;

/** The Markdown `content=full` makes of CONSTRUCTS_PAGE served at `<origin>/constructs` (with hide_selectors=#hide-me). */
export const constructsMarkdown = (origin: string): string => `# Constructs

| Fruit | Colour |
| --- | --- |
| Apple | Red |
| Pear | Green |

-   Fruit
    -   Apple
    -   Pear
-   Nuts

-   [x]  picked
-   [ ]  washed

\`\`\`python
def ripe(fruit):
    return fruit.soft
\`\`\`

\`\`\`js
const ripe = (fruit) => fruit.soft;
\`\`\`

Read [the next page](${origin}/next/page.html) and [the top](${origin}/constructs#top).
`;

/** Links: relative, absolute, repeated, fragment-only, another origin, inside and outside a nav. */
export const LINKS_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Links</title></head><body>
<nav id="menu"><a href="/one">One</a> <a href="two?x=1">Two</a></nav>
<p><a href="/one">One again</a> <a href="#section">Jump</a> <a href="https://other.example/page" rel="nofollow noopener">Elsewhere</a>
<a href="javascript:void 0">Script</a> <a href="mailto:someone@example.com">Mail</a> <a>No href</a></p>
</body></html>`;

/** A page with everything a preview reads: Open Graph, Twitter, two JSON-LD blocks, three icons, a feed, a web font. */
export const METADATA_PAGE = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Le verger</title>
<meta name="description" content="Notes from the orchard">
<link rel="canonical" href="/canonical-page">
<meta property="og:title" content="Orchard OG"><meta property="og:image" content="/og.png"><meta property="og:type" content="article">
<meta name="twitter:card" content="summary_large_image"><meta name="twitter:image" content="img/tw.png">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article","headline":"Orchard"}</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"BreadcrumbList","itemListElement":[]}</script>
<script type="application/ld+json">{ not json</script>
<link rel="icon" href="/favicon.ico" sizes="32x32"><link rel="icon" type="image/svg+xml" href="/icon.svg"><link rel="apple-touch-icon" href="/apple.png" sizes="180x180">
<link rel="alternate" type="application/rss+xml" title="Feed" href="/feed.xml">
</head><body><p>Orchard</p></body></html>`;

/** A form whose ARIA snapshot is known. */
export const FORM_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Form</title></head><body>
<h1>Sign up</h1><form><label>Email <input type="email" name="email"></label>
<label><input type="checkbox" name="terms"> I agree</label><button type="submit">Join</button></form>
<p id="outside">Outside the form</p></body></html>`;

/** A table for `scrape`. */
export const TABLE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><style>body{margin:0} td{height:20px;padding:0}</style><title>Prices</title></head><body>
<table id="prices" style="border-collapse:collapse"><tr class="row" data-sku="a1"><td>Apple</td><td>1.20</td></tr><tr class="row" data-sku="p2"><td>Pear</td><td>0.90</td></tr></table></body></html>`;

const page =
  (body: string): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store', 'Set-Cookie': 'session=secret-value', 'X-Served-By': 'fixtures' }).end(body);

/** The pages above, by path. */
export const CONTENT_ROUTES: Record<string, Handler> = {
  '/article': page(ARTICLE_PAGE),
  '/constructs': page(CONSTRUCTS_PAGE),
  '/links': page(LINKS_PAGE),
  '/metadata': page(METADATA_PAGE),
  '/form': page(FORM_PAGE),
  '/table': page(TABLE_PAGE),
  '/many-links': (_req, res, query) => {
    const count = Number(query.get('count') ?? 1000);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    // Built in the page: a million anchors would be some 40 MB to send.
    res.end(`<!doctype html><body><script>const f=document.createDocumentFragment();for(let i=0;i<${count};i++){const a=document.createElement('a');a.href='/l/'+i;a.textContent='link '+i;f.append(a)}document.body.append(f)</script></body>`);
  },
  // Built in the page: megabytes of head, each string past its metadata cap, and 500 og:* properties.
  '/huge-head': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><head><script>
const meta=(attr,name,content)=>{const m=document.createElement('meta');m.setAttribute(attr,name);m.content=content;document.head.append(m)};
const link=(rel,href)=>{const l=document.createElement('link');l.rel=rel;l.href=href;document.head.append(l)};
meta('name','description','d'.repeat(1e6));for(let i=0;i<500;i++)meta('property','og:p'+i,'o'.repeat(1e4));meta('name','twitter:'+'k'.repeat(1e5),'v');
link('canonical','/'+'c'.repeat(1e6));link('icon','/'+'i'.repeat(1e5)+'.png');document.documentElement.lang='l'.repeat(1e5);
</script></head><body>head</body>`);
  },
  // 1,000 nested divs over 200,000 characters: each div's text and HTML hold all of it.
  '/deep-text': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><body><script>let d=document.body;for(let i=0;i<1000;i++){const c=document.createElement('div');d.append(c);d=c}d.textContent='x'.repeat(2e5)</script></body>`);
  },
  // 1,000 links of 20,000-character URLs each.
  '/long-links': (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><body><script>const long='u'.repeat(2e4);for(let i=0;i<1000;i++){const a=document.createElement('a');a.href='/'+i+long;a.textContent='l';document.body.append(a)}</script></body>`);
  },
  '/huge-text': (_req, res, query) => {
    const mb = Number(query.get('mb') ?? 10);
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><body><script>const p=document.createElement('p');p.textContent='word '.repeat(${mb}*1024*1024/5);document.body.append(p)</script></body>`);
  },
};

/** The Markdown `content=main` makes of ARTICLE_PAGE served at `<origin>/article`: the article, headed by its h1, without the nav and the footer. */
export const articleMarkdown = (origin: string): string => `# Pruning apple trees

Winter is the time to prune an apple tree, while it sleeps. A tree pruned in winter grows back with vigour in spring, and the cuts heal before the sap rises. This guide walks through the cuts, the tools and the mistakes that cost a season of fruit.

Start with the dead, the diseased and the damaged wood: cut each back to healthy growth, just above an outward-facing bud. Then open the centre of the tree so light and air reach every branch, which keeps scab and canker away and ripens the fruit evenly.

## Tools

A sharp pair of bypass secateurs handles shoots up to a finger's width; a pruning saw takes the rest. Clean the blades between trees with alcohol so no disease travels from one tree to the next, and oil them when the day is done.

See the [tool guide](${origin}/guides/tools.html) for what to buy, and ![a clean cut](${origin}/img/cut.png) how a clean cut looks.
`;

/** What format=links answers for LINKS_PAGE served at `origin`. */
export const expectedLinks = (origin: string) => [
  { url: `${origin}/one`, text: 'One', rel: null, same_origin: true },
  { url: `${origin}/two?x=1`, text: 'Two', rel: null, same_origin: true },
  { url: 'https://other.example/page', text: 'Elsewhere', rel: 'nofollow noopener', same_origin: false },
  { url: 'mailto:someone@example.com', text: 'Mail', rel: null, same_origin: false },
];

/** The ARIA snapshot of FORM_PAGE's form. */
export const FORM_ARIA = `- textbox "Email"
- checkbox "I agree"
- text: I agree
- button "Join"`;
