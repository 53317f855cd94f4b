// The header's PDF and Offline links (overrides/partials/source.html) lead to files that separate builds write
// (scripts/build_pdf.sh, scripts/build_offline.sh). A preview without them would answer 404: the link asks first,
// and where the file is missing it says how to build it (the link's data-missing, in the page's language) in
// Material's dialog, the box that says "Copied to clipboard".
(function () {
  function say(text) {
    var dialog = document.querySelector(".md-dialog")
    if (!dialog) {
      dialog = document.createElement("div")
      dialog.className = "md-dialog"
      dialog.innerHTML = '<div class="md-dialog__inner md-typeset"></div>'
      document.body.appendChild(dialog)
    }
    dialog.setAttribute("role", "status")
    dialog.querySelector(".md-dialog__inner").textContent = text
    dialog.classList.add("md-dialog--active", "nb-download-missing")
    clearTimeout(say.timer)
    say.timer = setTimeout(function () { dialog.classList.remove("md-dialog--active") }, 8000)
  }
  document.addEventListener("click", function (ev) {
    var link = ev.target instanceof Element && ev.target.closest("a.nb-download")
    if (!link || link.dataset.checked === "yes") return
    ev.preventDefault()
    fetch(link.href, { method: "HEAD", cache: "no-store" }).then(function (response) {
      if (!response.ok) return say(link.dataset.missing)
      link.dataset.checked = "yes"
      link.click()
      delete link.dataset.checked
    }, function () { say(link.dataset.missing) })
  })
})()
