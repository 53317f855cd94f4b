/*
 * Material's search worker, with Chinese queries segmented the way the index was.
 *
 * At build time Material's search plugin cuts Chinese text with jieba and puts a zero-width space between
 * the words, so the index holds jieba's words. In the browser Material re-cuts a Chinese query greedily
 * against the index, but its cut never tries a run's full length ("梯度累加" loses "加"), so compound queries
 * miss. This wrapper learns the Chinese words of the index from the same documents Material indexes
 * (the setup message), cuts each Chinese run of a query into those words by their counts there, and hands
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
  var counts = new Map()                         /* how often each Chinese word occurs in the index */
  var total = 0
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
            if (run.length > 12) continue       /* a run this long was not cut by jieba: not a word */
            counts.set(run, (counts.get(run) || 0) + 1)
            total += 1
            if (run.length > longest) longest = run.length
          }
        }
      }
    }
  }

  /*
   * The most probable cut under the index's own word counts (a unigram model, as jieba's own cut is over its
   * dictionary), so that a query is cut as jieba cut the same text in the pages. Pieces are words of the
   * index or single characters; a character the index never holds alone costs as a word seen half a time.
   */
  function cut(run) {
    var n = run.length
    var logTotal = Math.log(total + 1)
    var best = [{ cost: 0, from: -1 }]
    for (var end = 1; end <= n; end++) {
      best[end] = null
      for (var len = Math.min(longest, end); len >= 1; len--) {
        var start = end - len
        var count = counts.get(run.slice(start, end))
        if (!count && len > 1) continue
        var cost = best[start].cost + logTotal - Math.log(count || 0.5)
        if (!best[end] || cost < best[end].cost) best[end] = { cost: cost, from: start }
      }
    }
    var pieces = []
    for (var at = n; at > 0; at = best[at].from) pieces.unshift(run.slice(best[at].from, at))
    return pieces
  }

  /*
   * The words of a Chinese run to search for: the most probable cut, then the index's words that straddle two
   * of its pieces, since jieba may have cut the same text otherwise in context ("非叶子张量": 非/叶子张量 in a
   * page, 非叶子/张量 here). Words inside one piece are left out: 分布 would drown 分布式.
   */
  function terms(run) {
    var pieces = cut(run)
    var found = pieces.slice()
    var bounds = [], at = 0
    for (var p = 0; p < pieces.length; p++) { at += pieces[p].length; bounds.push(at) }
    for (var start = 0; start < run.length; start++)
      for (var end = start + 2; end <= Math.min(run.length, start + longest); end++) {
        var word = run.slice(start, end)
        var straddles = bounds.some(function (b) { return b > start && b < end })
        if (straddles && counts.has(word) && found.indexOf(word) < 0) found.push(word)
      }
    return found
  }

  function rewrite(query) {
    return query.replace(HAN, function (run) {
      return terms(run).map(function (word) { return word.split("").join("\\") }).join(" ")
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

  /* Exposed for tests/test_search.py, which runs this file in Node to check the cut. */
  self.torchnotesSearch = { cut: cut, rewrite: rewrite, counts: counts }

  var material = new URLSearchParams(self.location.search).get("material")
  if (!material || !/^[\w.-]+\.js$/.test(material))
    throw new Error("search-zh.js: load it as search-zh.js?material=<Material's search worker file name>")
  importScripts(material)
})()
