// The language menu keeps the reader's cell (#cell-N) or exercise (#exercise-N): both twins number their code
// cells and exercises alike (the publish step checks the pairs), while heading ids differ between languages, so
// only those two kinds of anchor travel.
//
// Material's own click handler on the menu (it looks the page up in the other language's sitemap) navigates to
// the bare page and drops the anchor, so a plain click is taken here, before it reaches that handler; the
// link's href carries the anchor too, for a middle click or "copy link".
(function () {
  var KEPT = /^#(cell|exercise)-\d+$/
  var LINKS = "a.md-select__link[hreflang]"

  function target(link) {
    var bare = link.href.split("#")[0]
    return KEPT.test(location.hash) ? bare + location.hash : bare
  }

  function update() {
    document.querySelectorAll(LINKS).forEach(function (link) {
      link.href = target(link)
    })
  }

  // The anchor is added again at click time: language-switch.js (the Zensical build) may rewrite the hrefs after
  // this runs.
  update()
  window.addEventListener("hashchange", update)
  window.addEventListener("click", function (event) {
    var link = event.target instanceof Element ? event.target.closest(LINKS) : null
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
    event.preventDefault()
    event.stopPropagation()
    location.assign(target(link))
  }, true)
})()
