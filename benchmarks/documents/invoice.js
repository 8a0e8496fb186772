// A three-page invoice as a billing system sends it: inline styles, an SVG logo, a long table.

const ROWS = 70;
const items = Array.from({ length: ROWS }, (_, i) => {
  const quantity = (i % 7) + 1;
  const price = 12.5 + ((i * 37) % 200);
  return `<tr><td>${String(i + 1).padStart(3, '0')}</td><td>Consulting services, work package ${i + 1}: analysis, design and review</td><td class="n">${quantity}</td><td class="n">${price.toFixed(2)}</td><td class="n">${(quantity * price).toFixed(2)}</td></tr>`;
}).join('');

export const INVOICE = `<!doctype html><html><head><meta charset="utf-8"><title>Invoice 2026-0042</title><style>
body{font:11pt/1.4 "DejaVu Sans",sans-serif;color:#222;margin:0}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:3px solid #1d4ed8;padding-bottom:12px}
h1{font-size:22pt;margin:0;color:#1d4ed8}
.addresses{display:flex;justify-content:space-between;margin:24px 0}
table{width:100%;border-collapse:collapse}
th{background:#1d4ed8;color:#fff;text-align:left;padding:6px}
td{padding:5px 6px;border-bottom:1px solid #ddd}
tr:nth-child(even) td{background:#f3f6fb}
.n{text-align:right;white-space:nowrap}
tfoot td{font-weight:bold;border-top:2px solid #222}
footer{margin-top:32px;font-size:9pt;color:#666}
</style></head><body>
<header><svg width="120" height="40" viewBox="0 0 120 40"><rect width="40" height="40" rx="8" fill="#1d4ed8"/><text x="50" y="27" font-size="18" fill="#1d4ed8">Acme</text></svg><h1>Invoice 2026-0042</h1></header>
<div class="addresses"><div><b>Acme Consulting Ltd</b><br>1 Market Street<br>Springfield</div><div><b>Billed to</b><br>Example Industries<br>42 Harbour Road<br>Shelbyville</div><div>Date: 2026-11-24<br>Due: 2026-12-24</div></div>
<table><thead><tr><th>#</th><th>Description</th><th class="n">Qty</th><th class="n">Unit</th><th class="n">Amount</th></tr></thead>
<tbody>${items}</tbody><tfoot><tr><td colspan="4">Total</td><td class="n">EUR 48,211.50</td></tr></tfoot></table>
<footer>Payable within 30 days to IBAN XX00 0000 0000 0000. Thank you for your business.</footer>
</body></html>`;
