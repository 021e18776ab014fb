/** The HTML every console page starts from; the script renders the page named by `data-page`. */
export function pageShell(opts: { page: string; title: string; script: string; style: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${opts.title} · svc console</title>
<link rel="stylesheet" href="/console/assets/${opts.style}">
<script type="module" src="/console/assets/${opts.script}"></script>
</head>
<body data-page="${opts.page}">
<a class="skip" href="#main">Skip to content</a>
<div id="app"><main id="main"><noscript><p>The svc console needs JavaScript.</p></noscript></main></div>
</body>
</html>
`;
}
