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
 *    as "梯度", and Material's own cut leaves single characters alone.
 * 3. Mixed scripts ("inplace报错") are split between Chinese and Latin (splitScripts).
 * 4. Each word is also searched as its counterparts of config.torchnotes.expand (glossary, synonyms), weighted
 *    below the typed words (rewrite).
 * 5. English phrases: stop words, compounds and plurals (english).
 * 6. No excerpt starts with punctuation (trimmed). Everything else is Material's worker.
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

  /* The query side's words: the Chinese runs between separators of the entries Material indexes; the others. */
  var index = model()
  var latinWords = new Set()
  var TAG = /<[^>]*>/g

  function learn(docs, separator) {
    var split = new RegExp(separator, "g")
    for (var i = 0; i < docs.length; i++) {
      var fields = [docs[i].title, docs[i].text]
      for (var f = 0; f < fields.length; f++) {
        if (typeof fields[f] !== "string") continue
        var tokens = fields[f].replace(TAG, " ").split(split)
        for (var t = 0; t < tokens.length; t++) {
          var runs = tokens[t].match(HAN)
          if (!runs) { if (tokens[t]) latinWords.add(tokens[t].toLowerCase()); continue }
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

  /* A Chinese word as Material's worker must get it: characters joined by lunr's escape ("梯\度"), see 2. */
  function escape(word) { return word.split("").join("\\") }

  function segmented(query) { return query.replace(HAN, function (run) { return terms(run).map(escape).join(" ") }) }

  /*
   * 3. Mixed scripts. "inplace报错", "cuda不可用": Material's separator does not split Chinese from Latin, so such a
   *    token matches nothing. A space goes between a Chinese character and a letter or digit next to it.
   */
  var BOUNDARY = /(\p{sc=Han})(?=(?!\p{sc=Han})[\p{L}\p{N}])|((?!\p{sc=Han})[\p{L}\p{N}])(?=\p{sc=Han})/gu

  function splitScripts(query) { return query.replace(BOUNDARY, "$& ") }

  /*
   * 4. Expansion. config.torchnotes.expand (torchnotes/search_expand.py) maps what a reader may type to words the
   *    index holds: the glossary's pairs (in-place <-> 原地, 拷贝 -> 复制) and torchnotes/search_synonyms_zh.yml
   *    (显卡 -> GPU). Keys are Chinese words, or English words lowercased with their pieces joined ("inplace").
   *    The query's words are searched as typed, boosted, and the counterparts of its keys besides them, so that a
   *    page with the typed word still comes first. Queries that use lunr's syntax are left as they are.
   */
  var BOOST = 3                                  /* lunr reads whole-number boosts only: a counterpart weighs 1/3 */
  var LATIN_WORDS = 4                            /* the most words of an English key ("random number generator") */
  var SYNTAX = /["+^~:*]|(^|\s)-/
  var expansions = { han: new Map(), latin: new Map(), longest: 1, separator: /\s+/ }

  function learnExpansions(table, separator) {
    expansions.separator = new RegExp(separator)
    for (var i = 0; i < (table || []).length; i++) {
      var key = table[i][0], words = table[i].slice(1)
      if (HAS_HAN.test(key)) {
        expansions.han.set(key, words)
        expansions.longest = Math.max(expansions.longest, key.length)
      } else expansions.latin.set(key, words)
    }
  }

  /* The counterparts of the keys in a Chinese run, longest key first at each place; spans: where keys were. */
  function hanCounterparts(run, found, spans) {
    for (var at = 0; at < run.length;) {
      var len = Math.min(expansions.longest, run.length - at)
      for (; len > 0 && !expansions.han.has(run.substr(at, len)); len--);
      if (!len) { at++; continue }
      var key = run.substr(at, len)
      found.push({ words: expansions.han.get(key), held: index.counts.has(key) })
      spans.push([at, at += len])
    }
  }

  /* English keys in a run of Latin words ("pinned", "memory"), longest first, a plural "s" or "es" dropped. */
  function latinCounterparts(words, found) {
    for (var at = 0; at < words.length;) {
      var len = Math.min(LATIN_WORDS, words.length - at), hit = null
      for (; len > 0; len--) {
        var key = words.slice(at, at + len).join("").toLowerCase()
        hit = expansions.latin.get(key) || expansions.latin.get(key.replace(/e?s$/, ""))
        if (hit) break
      }
      var held = hit && words.slice(at, at + len).every(function (w) { return latinWords.has(w.toLowerCase()) })
      if (hit) found.push({ words: hit, held: held })
      at += Math.max(len, 1)
    }
  }

  /*
   * 5. English phrases. The index holds no stop word (lunr's stopWordFilter drops them when it is built), but
   *    Material searches every typed word with a trailing wildcard, so "in" of "in-place error" matched every
   *    word that starts with "in" (index, input, ...), on every page. A stop word is therefore left out of a query
   *    that has other words. The spellings of one compound find the same pages: "in-place" and "in place" are
   *    also searched as "inplace" where the index holds that word, and "inplace" as "place" (its part after a
   *    stop word, which is what the index kept of "in-place"). A plural the index does not hold is searched as its
   *    singular ("jacobians" -> "jacobian*", which finds both); one it holds stays as typed ("GPUs": "gpu*" would
   *    match every page about a GPU).
   */
  var STOP_WORDS = new Set(("a able about across after all almost also am among an and any are as at be because " +
    "been but by can cannot could dear did do does either else ever every for from get got had has have he her " +
    "hers him his how however i if in into is it its just least let like likely may me might most must my neither " +
    "no nor not of off often on only or other our own rather said say says she should since so some than that the " +
    "their them then there these they this tis to too twas us wants was we were what when where which while who " +
    "whom why will with would yet you your").split(" "))  /* lunr.stopWordFilter's list, lunr 2.3 */

  function english(words) {
    var lower = words.map(function (w) { return w.toLowerCase() })
    var kept = lower.filter(function (w) { return !STOP_WORDS.has(w) })
    var out = kept.length ? [] : words.slice()
    lower.forEach(function (word, i) {
      if (!kept.length) return
      if (!STOP_WORDS.has(word)) {
        var singular = /ies$/.test(word) ? word.slice(0, -3) + "y" : word.replace(/(?:(?<=(?:ss|sh|ch|x))es|s)$/, "")
        var unheld = !latinWords.has(word) && singular.length > 2 && latinWords.has(singular)
        out.push(unheld ? singular : words[i])
        for (var at = 2; at <= word.length - 3; at++) {                 /* inplace -> place */
          if (STOP_WORDS.has(word.slice(0, at)) && latinWords.has(word.slice(at))) out.push(word.slice(at))
        }
      }
      var next = lower[i + 1]
      if (next && latinWords.has(word + next)) out.push(word + next)   /* in-place, in place -> inplace */
    })
    return out
  }

  /* The lunr terms of a phrase: Chinese cut into the index's words (escaped), Latin split by the separator. */
  function phraseTerms(phrase) {
    var out = []
    phrase.split(/(\p{sc=Han}+)/u).forEach(function (piece, i) {
      if (i % 2) out.push.apply(out, cut(piece).map(escape))
      else out.push.apply(out, piece.split(/\s+/).join(" ").split(expansions.separator).filter(Boolean))
    })
    return out
  }

  /*
   * The query's own terms and the counterparts of its keys. A single character the cut left inside a key is
   * dropped: the key is not a word of the index ("显卡": 显, 卡), and its characters alone would match unrelated
   * words (显存, 显式). Latin words are looked up in runs, across spaces ("pinned memory"), not across Chinese.
   */
  function expand(query) {
    var typed = [], found = [], latin = []
    query.split(/(\p{sc=Han}+)/u).forEach(function (piece, i) {
      if (!(i % 2)) {
        var words = piece.split(/\s+/).join(" ").split(expansions.separator).filter(Boolean)
        typed.push.apply(typed, english(words))
        latin.push.apply(latin, words)
        return
      }
      latinCounterparts(latin, found)
      latin = []
      var spans = [], at = 0, pieces = cut(piece)
      hanCounterparts(piece, found, spans)
      pieces.forEach(function (word) {
        var inside = spans.some(function (s) { return at >= s[0] && at + word.length <= s[1] })
        if (!(inside && word.length === 1)) typed.push(escape(word))
        at += word.length
      })
      typed.push.apply(typed, terms(piece).slice(pieces.length).map(escape))  /* the straddling words */
    })
    latinCounterparts(latin, found)
    return { typed: typed, found: found }
  }

  /*
   * A term with its weight, as lunr's query syntax writes it. Material adds a trailing wildcard to a term without
   * a boost. Whole words get none, so they are written with their boost, which Material leaves alone: a single
   * Chinese character ("不*" would match every word that starts with 不), and a counterpart, which is a word of
   * the index (exact: "in" of in-place must not match "index").
   */
  function weighted(term, boost, exact) {
    var whole = exact || (term.length === 1 && HAS_HAN.test(term))
    if (boost === 1 && !whole) return term
    return term + (whole ? "" : "*") + "^" + boost
  }

  /*
   * The query for Material's worker. What the reader typed weighs BOOST; so do the counterparts of a key the index
   * does not hold itself (显卡, inplace: the counterpart stands in for it); the counterparts of a key the index
   * holds (pinned memory -> 锁页内存) weigh 1, so that the pages with the typed words still come first.
   */
  function rewrite(query) {
    query = splitScripts(query)
    if (SYNTAX.test(query)) return segmented(query)
    var result = expand(query)
    var seen = new Set(), out = []
    var emit = function (term, boost, exact) {
      var plain = term.replace(/\\/g, "").toLowerCase()
      if (!seen.has(plain)) { seen.add(plain); out.push(weighted(term, boost, exact)) }
    }
    var extra = result.found.length ? BOOST : 1
    result.typed.forEach(function (term) { emit(term, extra) })
    result.found.forEach(function (group) {
      group.words.forEach(function (phrase) {
        phraseTerms(phrase).forEach(function (term) { emit(term, group.held ? 1 : BOOST, true) })
      })
    })
    return out.join(" ")
  }

  /*
   * 6. Excerpts. Material shows a result's text from the start of the first piece between two tags that holds a
   *    match, so after an inline <code> the excerpt began with the punctuation that followed it ("、 COO 稀疏张量").
   *    Punctuation (and the spaces around it) at the start of an excerpt is dropped; "." only before a space, so
   *    that ".data" stays.
   */
  var RESULT = 3                                 /* Material's SearchMessageType */
  var LEADING_PUNCTUATION = /^(?:[\s\u200b]|<\/mark>)*(?:[、。，．？！；：）」』》〉”’,;:!?)]|\.(?=[\s\u200b]))+[\s\u200b]*/

  function excerpt(text) { return typeof text === "string" ? text.replace(LEADING_PUNCTUATION, "") : text }

  function trimmed(message) {
    if (!message || message.type !== RESULT || !message.data || !Array.isArray(message.data.items)) return message
    message.data.items.forEach(function (group) {
      (Array.isArray(group) ? group : [group]).forEach(function (doc) { if (doc) doc.text = excerpt(doc.text) })
    })
    return message
  }

  var post = self.postMessage
  if (typeof post === "function")
    self.postMessage = function (message) { return post.apply(self, [trimmed(message)].concat([].slice.call(arguments, 1))) }

  self.addEventListener("message", function (ev) {
    var message = ev.data
    if (!message || message.segmented) return
    if (message.type === SETUP) {
      var packed = message.data.config && message.data.config.torchnotes
      message.data = unpack(message.data)
      learn(message.data.docs, message.data.config.separator)
      learnExpansions(packed && packed.expand, message.data.config.separator)
    } else if (message.type === QUERY && typeof message.data === "string") {
      ev.stopImmediatePropagation()
      self.dispatchEvent(new MessageEvent("message", {
        data: { type: QUERY, data: rewrite(message.data), segmented: true }
      }))
    }
  })

  /* Exposed for tests/test_search.py and tests/test_search_expand.py, which run this file in Node. */
  self.torchnotesSearch = { cut: cut, rewrite: rewrite, unpack: unpack, splitScripts: splitScripts, english: english,
                            excerpt: excerpt }

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
