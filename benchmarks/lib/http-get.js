// One GET over loopback, body read to the end.

export async function get(port, pathAndQuery, headers = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${pathAndQuery}`, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}
