/*
 * Material's search worker, with Chinese queries segmented the way the index was.
 *
 * At build time Material's search plugin cuts Chinese text with jieba and puts a zero-width space between
 * the words, so the index holds jieba's words. In the browser Material re-cuts a Chinese query greedily
 * against the index, but its cut never tries a run's full length ("梯度累加" loses "加"), so compound queries
 * miss. This wrapper learns the Chinese words of the index from the same documents Material indexes
 * (the setup message), cuts each Chinese run of a query into those words with the fewest pieces, and hands
 * Material every word with its characters joined by lunr's escape character ("梯\度"): lunr reads it as
 * "梯度", and Material's own cut leaves single characters alone. Everything else is Material's worker.
 *
 * Loaded by overrides/main.html as __config.search, with ?material=<Material's worker file name>.
 */
(function () {
  "use strict"

  var SETUP = 0, QUERY = 2                       /* Material's SearchMessageType */
  var HAN = /\p{sc=Han}+/gu
  var HAS_HAN = /\p{sc=Han}/u
  var words = new Set()                          /* Chinese words of two or more characters in the index */
  var longest = 1

  function learn(docs, separator) {
    var split = new RegExp(separator, "g")
    for (var i = 0; i < docs.length; i++) {
      var fields = [docs[i].title, docs[i].text]
      for (var f = 0; f < fields.length; f++) {
        if (typeof fields[f] !== "string") continue
        var tokens = fields[f].split(split)
        for (var t = 0; t < tokens.length; t++) {
          var runs = tokens[t].match(HAN)
          if (!runs) continue
          for (var r = 0; r < runs.length; r++) {
            var run = runs[r]
            if (run.length > 1 && run.length <= 12) {
              words.add(run)
              if (run.length > longest) longest = run.length
            }
          }
        }
      }
    }
  }

  /* The cut with the fewest pieces, then the fewest single characters; pieces are index words or characters. */
  function cut(run) {
    var n = run.length
    var best = [[0, 0, -1]]                      /* [pieces, singles, start of last piece] per prefix length */
    for (var end = 1; end <= n; end++) {
      best[end] = null
      for (var len = Math.min(longest, end); len >= 1; len--) {
        var start = end - len
        if (len > 1 && !words.has(run.slice(start, end))) continue
        var prev = best[start]
        var score = [prev[0] + 1, prev[1] + (len === 1 ? 1 : 0), start]
        var cur = best[end]
        if (!cur || score[0] < cur[0] || (score[0] === cur[0] && score[1] < cur[1])) best[end] = score
      }
    }
    var pieces = []
    for (var at = n; at > 0; at = best[at][2]) pieces.unshift(run.slice(best[at][2], at))
    return pieces
  }

  function rewrite(query) {
    return query.replace(HAN, function (run) {
      return cut(run).map(function (word) { return word.split("").join("\\") }).join(" ")
    })
  }

  self.addEventListener("message", function (ev) {
    var message = ev.data
    if (!message || message.segmented) return
    if (message.type === SETUP) {
      learn(message.data.docs, message.data.config.separator)
    } else if (message.type === QUERY && typeof message.data === "string" && HAS_HAN.test(message.data)) {
      ev.stopImmediatePropagation()
      self.dispatchEvent(new MessageEvent("message", {
        data: { type: QUERY, data: rewrite(message.data), segmented: true }
      }))
    }
  })

  /* Exposed for the browser tests, which check the cut itself. */
  self.torchnotesSearch = { cut: cut, rewrite: rewrite, words: words }

  var material = new URLSearchParams(self.location.search).get("material")
  if (!material || !/^[\w.-]+\.js$/.test(material))
    throw new Error("search-zh.js: load it as search-zh.js?material=<Material's search worker file name>")
  importScripts(material)
})()
