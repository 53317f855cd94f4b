// The language menu leads to the same page in the other language. Zensical builds each language as its own
// site, and its menu links (extra.alternate, from torchnotes/zensical.py) point at each language's root; the
// page's path below its own root is the same in every language (the publish step checks the pairs).
// mkdocs-static-i18n writes per-page links itself (and the notice's link is right as written), so the MkDocs build
// does not load this file.
(function () {
  var config = document.getElementById("__config")
  if (!config) return
  var base = JSON.parse(config.textContent).base || "."
  var root = new URL(base.replace(/\/?$/, "/"), location.href).href
  var here = location.href.split("#")[0].split("?")[0]
  if (here.indexOf(root) !== 0) return
  var path = here.slice(root.length)
  document.querySelectorAll("a.md-select__link[hreflang]").forEach(function (link) {
    var otherRoot = new URL(link.getAttribute("href"), location.href).href
    link.href = new URL(path, otherRoot).href
    // The link to the English page in a translation's "out of date" notice (torchnotes/freshness.py): Zensical
    // reads its relative URL from the page's source file, not from the page's own URL as MkDocs does.
    document.querySelectorAll('.nb-stale a[hreflang="' + link.getAttribute("hreflang") + '"]').forEach(function (a) {
      a.href = link.href
    })
  })
})()
