/*
 * Material's search worker, fed the site's packed index and cutting Chinese queries the way the index is cut.
 *
 * 1. The index. torchnotes/search_index.py packs Material's index: each page's path once, entries as
 *    [location suffix, title, text], <code> as a backtick, and Chinese without the zero-width spaces Material
 *    put between jieba's words; the words themselves, with their counts, come once in config.torchnotes.words.
 *    unpack() rebuilds Material's entries: it cuts every Chinese run into the most probable sequence of those
 *    words and puts the zero-width spaces back, as Material's plugin did. Material's worker gets its own format.
 * 2. Queries. Material re-cuts a Chinese query greedily against the index, but its cut never tries a run's full
 *    length ("梯度累加" loses "加"), so compound queries miss. This wrapper learns the Chinese words of the index
 *    from the entries Material indexes, cuts each Chinese run of a query into those words by their counts, and
 *    hands Material every word with its characters joined by lunr's escape character ("梯\度"): lunr reads it
 *    as "梯度", and Material's own cut leaves single characters alone. Everything else is Material's worker.
 *
 * Loaded by overrides/main.html as __config.search, with ?material=<Material's worker file name>.
 */
(function () {
  "use strict"

  var SETUP = 0, QUERY = 2                       /* Material's SearchMessageType */
  var FORMAT = 1                                 /* torchnotes/search_index.py FORMAT */
  var HAN = /\p{sc=Han}+/gu
  var HAS_HAN = /\p{sc=Han}/u
  var ZWSP = "\u200b"
  var LONGEST_WORD = 12                          /* a longer run was not cut by jieba: not a word */

  function model() { return { counts: new Map(), total: 0, longest: 1 } }

  function add(words, word, count) {
    words.counts.set(word, (words.counts.get(word) || 0) + count)
    words.total += count
    if (word.length > words.longest) words.longest = word.length
  }

  /* The query side's words: the Chinese runs between separators of the entries Material indexes. */
  var index = model()

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
          for (var r = 0; r < runs.length; r++)
            if (runs[r].length <= LONGEST_WORD) add(index, runs[r], 1)
        }
      }
    }
  }

  /*
   * The most probable cut under a word model (a unigram model, as jieba's own cut is over its dictionary).
   * Pieces are words of the model or single characters; a character the model never holds alone costs as a
   * word seen half a time.
   */
  function cut(run, words) {
    words = words || index
    var n = run.length
    var logTotal = Math.log(words.total + 1)
    var best = [{ cost: 0, from: -1 }]
    for (var end = 1; end <= n; end++) {
      best[end] = null
      for (var len = Math.min(words.longest, end); len >= 1; len--) {
        var start = end - len
        var count = words.counts.get(run.slice(start, end))
        if (!count && len > 1) continue
        var cost = best[start].cost + logTotal - Math.log(count || 0.5)
        if (!best[end] || cost < best[end].cost) best[end] = { cost: cost, from: start }
      }
    }
    var pieces = []
    for (var at = n; at > 0; at = best[at].from) pieces.unshift(run.slice(best[at].from, at))
    return pieces
  }

  /* A packed title or text as Material wrote it: <code> back, Chinese cut with zero-width spaces. */
  function restore(value, words) {
    var open = false
    value = value.replace(/`/g, function () { open = !open; return open ? "<code>" : "</code>" })
    value = value.replace(/&#96;/g, "`")  /* Material escapes "&" in text: this entity can only be ours */
    value = value.replace(HAN, function (run) { return ZWSP + cut(run, words).join(ZWSP) + ZWSP })
    return value.replace(/^\u200b+|\u200b+$/g, "")
  }

  /* The packed index (see torchnotes/search_index.py) as Material's {config, docs}; Material's own as it is. */
  function unpack(data) {
    var packed = data.config && data.config.torchnotes
    if (!packed) return data
    if (packed.format !== FORMAT)
      throw new Error("search-zh.js: search index format " + packed.format + ", this worker reads " + FORMAT)
    var words = model()
    for (var g = 0; g < packed.words.length; g++) {
      var group = packed.words[g]
      if (!group[1]) continue
      var list = group[1].split(" ")
      for (var w = 0; w < list.length; w++) add(words, list[w], group[0])
    }
    var docs = []
    for (var p = 0; p < data.docs.length; p++) {
      var page = data.docs[p]
      for (var i = 1; i + 2 < page.length; i += 3)
        docs.push({ location: page[0] + page[i], title: restore(page[i + 1], words), text: restore(page[i + 2], words) })
    }
    var config = {}
    for (var key in data.config) if (key !== "torchnotes") config[key] = data.config[key]
    return { config: config, docs: docs, options: data.options }
  }

  /*
   * The words of a Chinese run to search for: the most probable cut, then the index's words that straddle two
   * of its pieces, since the same text may be cut otherwise in context ("非叶子张量": 非/叶子张量 in a page,
   * 非叶子/张量 here). Words inside one piece are left out: 分布 would drown 分布式.
   */
  function terms(run) {
    var pieces = cut(run)
    var found = pieces.slice()
    var bounds = [], at = 0
    for (var p = 0; p < pieces.length; p++) { at += pieces[p].length; bounds.push(at) }
    for (var start = 0; start < run.length; start++)
      for (var end = start + 2; end <= Math.min(run.length, start + index.longest); end++) {
        var word = run.slice(start, end)
        var straddles = bounds.some(function (b) { return b > start && b < end })
        if (straddles && index.counts.has(word) && found.indexOf(word) < 0) found.push(word)
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
      message.data = unpack(message.data)
      learn(message.data.docs, message.data.config.separator)
    } else if (message.type === QUERY && typeof message.data === "string" && HAS_HAN.test(message.data)) {
      ev.stopImmediatePropagation()
      self.dispatchEvent(new MessageEvent("message", {
        data: { type: QUERY, data: rewrite(message.data), segmented: true }
      }))
    }
  })

  /* Exposed for tests/test_search.py, which runs this file in Node. */
  self.torchnotesSearch = { cut: cut, rewrite: rewrite, unpack: unpack, counts: index.counts }

  importScripts(materialWorker())

  /*
   * Where Material's worker is: its file name comes as ?material= in this script's URL. From file:// (the offline
   * copy, torchnotes/offline) this script runs in iframe-worker's iframe instead of a worker: there self.location
   * is the page's, the script tag's URL carries the shim's "?<time>" after ours, and a relative URL would resolve
   * against the page, so the name is read from the tag and resolved against it.
   */
  function materialWorker() {
    var tag = self.document && self.document.currentScript
    var search = tag ? new URL(tag.src).search : self.location.search
    var material = (new URLSearchParams(search).get("material") || "").split("?")[0]
    if (!/^[\w.-]+\.js$/.test(material))
      throw new Error("search-zh.js: load it as search-zh.js?material=<Material's search worker file name>")
    return tag ? new URL(material, tag.src).href : material
  }
})()
