// Rendering probe injected by tests/book/browser_check.py into a copy of each built page.
// After the page has loaded and MathJax has finished its first typeset, it collects what the
// browser saw into a JSON-able result. Python drives the browser over the DevTools protocol and
// reads it through `window[PROBE]`: `.result` (written as the probe goes; "status": "done" only
// at the very end, so a page whose probe never finishes, MathJax hanging or a script error, is
// reported by Python) and `.done`, a promise of the final result. The layout (what does not fit
// the text column or its box: outputs, code cell inputs, tables, equations) is measured at the
// window's width; Python then narrows the window (the viewport) to each narrower width and calls
// `.layoutAt(width)`, which measures it again on the same page (no reload, no second typeset).
(function () {
  "use strict";
  var PROBE = "__cotbookProbe";
  var WAIT_MS = __WAIT_MS__; // how long (real time) to wait for MathJax and for images
  var LIMIT = 20; // findings kept per kind, so a page full of one fault stays readable
  // The page's own scripts may replace it later; the probe keeps the browser's.
  var requestFrame = window.requestAnimationFrame.bind(window);

  function sleep(ms) {
    return new Promise(function (resolve) { setTimeout(resolve, ms); });
  }

  function short(text, n) {
    text = (text || "").replace(/\s+/g, " ").trim();
    n = n || 120;
    return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
  }

  function windowLoaded() {
    if (document.readyState === "complete") return Promise.resolve();
    return new Promise(function (resolve) { window.addEventListener("load", resolve); });
  }

  // Resolves to a fault string, or null when MathJax typeset the page (or the page has no math).
  async function mathjaxFinished() {
    var hasMath = document.querySelector(".math, mjx-container") !== null;
    // A page without math that does not load MathJax either (Sphinx adds it only to pages with
    // math) has nothing to wait for; TeX left in its text is reported by mathFaults.
    var loadsMathJax = window.MathJax !== undefined
      || document.querySelector("script[src*='mathjax' i]") !== null;
    if (!hasMath && !loadsMathJax) return null;
    var waited = 0;
    while (!(window.MathJax && window.MathJax.startup && window.MathJax.startup.promise)) {
      if (waited >= WAIT_MS) {
        return hasMath ? "MathJax did not load (no MathJax.startup.promise after "
          + WAIT_MS + " ms)" : null;
      }
      await sleep(50);
      waited += 50;
    }
    var timedOut = {};
    var outcome = await Promise.race([
      window.MathJax.startup.promise.then(function () { return null; }, function (err) {
        return "MathJax startup failed: " + short(String(err));
      }),
      sleep(WAIT_MS).then(function () { return timedOut; }),
    ]);
    if (outcome === timedOut) {
      return "MathJax did not finish typesetting within " + WAIT_MS + " ms";
    }
    return outcome;
  }

  // Every <img> gets a chance to load, lazy ones included.
  async function imagesSettled() {
    var imgs = Array.prototype.slice.call(document.images);
    imgs.forEach(function (img) { img.loading = "eager"; });
    var pending = imgs.filter(function (img) { return !img.complete; });
    var waited = 0;
    while (pending.length && waited < WAIT_MS) {
      await sleep(50);
      waited += 50;
      pending = pending.filter(function (img) { return !img.complete; });
    }
  }

  function isRed(el) {
    if ((el.getAttribute("mathcolor") || "").toLowerCase() === "red") return true;
    var style = (el.getAttribute("style") || "").replace(/\s+/g, "").toLowerCase();
    if (/(^|;)color:(red|#f00|#ff0000|rgb\(255,0,0\))/.test(style)) return true;
    return window.getComputedStyle(el).color === "rgb(255, 0, 0)";
  }

  function mathFaults() {
    var out = [];
    document.querySelectorAll("span.math, div.math").forEach(function (el) {
      if (!el.querySelector("mjx-container")) {
        out.push("math not typeset: " + short(el.textContent));
      }
    });
    document.querySelectorAll("mjx-container").forEach(function (box) {
      var tex = "";
      box.querySelectorAll("mjx-merror, [data-mjx-error]").forEach(function (el) {
        tex = el.getAttribute("data-mjx-error") || el.textContent;
        out.push("TeX error: " + short(tex));
      });
      // The outermost red elements hold the offending TeX as text (in the assistive MathML at
      // least; CHTML may draw the glyphs from CSS and hold no text).
      var red = 0;
      var texts = [];
      box.querySelectorAll("*").forEach(function (el) {
        if (!isRed(el)) return;
        var parent = el.parentElement;
        if (parent && parent !== box && box.contains(parent) && isRed(parent)) return;
        red += 1;
        var text = short(el.textContent);
        if (text && texts.indexOf(text) < 0) texts.push(text);
      });
      texts.forEach(function (text) { out.push("red TeX text '" + text + "'"); });
      if (red && !texts.length) out.push("red TeX text in '" + short(box.textContent) + "'");
    });
    // TeX that MathJax never saw: delimiters left in the prose (code blocks excluded).
    var skip = new Set(["SCRIPT", "STYLE", "PRE", "CODE", "TEXTAREA", "MJX-CONTAINER",
      "MJX-ASSISTIVE-MML", "MATH"]);
    var raw = /\\\(|\\\[|\$\$|\$[^$\n]*\\[A-Za-z]+[^$\n]*\$/;
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        for (var el = node.parentElement; el; el = el.parentElement) {
          if (skip.has(el.tagName.toUpperCase())) return NodeFilter.FILTER_REJECT;
          if (el.classList.contains("highlight")) return NodeFilter.FILTER_REJECT;
        }
        return NodeFilter.FILTER_ACCEPT;
      },
    });
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var m = raw.exec(node.textContent);
      if (m) out.push("raw TeX left in the text: " + short(node.textContent.slice(m.index), 80));
    }
    return out;
  }

  // Characters that need a font the book does not ship (it ships MathJax's fonts and the
  // theme's icon font, whose glyphs are drawn from CSS, not from the text): emoji, which a
  // browser or PDF without an emoji font draws as empty boxes, and private-use code points.
  // One fault per text node (outside scripts and styles), naming the first such character.
  // (a character followed by U+FE0F is one asked to be drawn as an emoji)
  var UNSHIPPED = /\p{Emoji_Presentation}|\P{Cc}\uFE0F|\p{Co}/u;

  function glyphFaults() {
    var out = [];
    var hidden = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
    var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
      acceptNode: function (node) {
        var parent = node.parentElement;
        return parent && hidden.has(parent.tagName.toUpperCase())
          ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT;
      },
    });
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var text = node.textContent;
      var m = UNSHIPPED.exec(text);
      if (!m) continue;
      var codes = Array.from(m[0]).map(function (c) {
        return "U+" + c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
      });
      var around = text.slice(Math.max(0, m.index - 30), m.index + 30);
      out.push("character " + codes.join(" ") + " '" + m[0] + "' needs a font the book does "
        + "not ship: '" + short(around, 60) + "'");
    }
    return out;
  }

  function imageFaults() {
    var out = [];
    Array.prototype.forEach.call(document.images, function (img) {
      var src = img.getAttribute("src") || "";
      if (!img.complete) {
        out.push("image did not load: " + short(src));
      } else if (img.naturalWidth === 0) {
        out.push("image failed to load: " + short(src));
      }
    });
    return out;
  }

  var EXCEPTION_LINE = /^\s*([A-Za-z_][\w.]*(Error|Exception|Warning))(: |:$|$)/m;

  function outputFaults() {
    var out = [];
    // myst-nb renders each output as div.output (stream, stderr, traceback, text_plain, ...)
    // inside div.cell_output; markdown outputs sit in div.cell_output directly.
    var areas = Array.prototype.filter.call(
      document.querySelectorAll("div.output, .cell_output"),
      function (el) { return el.classList.contains("output") || !el.querySelector(".output"); }
    );
    areas.forEach(function (el) {
      var text = visibleText(el);
      var classes = el.classList;
      if (classes.contains("traceback") || classes.contains("error")) {
        out.push("error output: " + short(lastLine(text)));
      } else if (classes.contains("stderr")) {
        out.push("stderr output: " + short(text));
      } else if (text.indexOf("Traceback (most recent call last)") >= 0) {
        out.push("traceback in output: " + short(lastLine(text)));
      } else {
        var m = EXCEPTION_LINE.exec(text);
        // A cell that catches an exception and prints it (a demonstration that cotbook refuses
        // bad input) is not a fault; any other exception-shaped line is.
        if (m && !catchesExceptions(el)) {
          out.push("exception in output: " + short(text.slice(m.index)));
        }
      }
    });
    return out;
  }

  // Text of an output without the buttons other extensions add (sphinx-copybutton's "Copy").
  // Table cells are kept apart by a space.
  function visibleText(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll("button, .copybtn").forEach(function (b) { b.remove(); });
    copy.querySelectorAll("td, th").forEach(function (cell) { cell.append(" "); });
    return copy.textContent || "";
  }

  function lastLine(text) {
    var lines = text.trim().split("\n");
    return lines[lines.length - 1];
  }

  function catchesExceptions(el) {
    var cell = el.closest(".cell");
    var code = cell && cell.querySelector(".cell_input");
    return !!code && /\bexcept\b|catch_warnings/.test(code.textContent);
  }

  // ---- Layout: what does not fit the text column (at each window width, see layoutAt) ----
  // Each finding is {what, px}: what is wrong (the same words at every width) and by how many
  // px. There is one finding at most per output box, cell input, table or equation, so none are
  // capped.
  var TOL = 2; // px of slack for sub-pixel rounding

  // The main text column: the content box of the theme's article (else of <main> or <body>).
  function textColumn() {
    var el = document.querySelector("article.bd-article") || document.querySelector("main")
      || document.body;
    var r = el.getBoundingClientRect();
    var cs = window.getComputedStyle(el);
    var left = r.left + parseFloat(cs.borderLeftWidth) + parseFloat(cs.paddingLeft);
    var right = r.right - parseFloat(cs.borderRightWidth) - parseFloat(cs.paddingRight);
    return { el: el, left: left, right: right, width: right - left };
  }

  function px(n) {
    return Math.ceil(n - 1e-6);
  }

  // The horizontal extent in which `el` can be seen: the text column, narrowed by every
  // ancestor up to it that clips or scrolls its overflow.
  function visibleExtent(el, column) {
    var extent = { left: column.left, right: column.right };
    for (var a = el.parentElement; a && a !== column.el; a = a.parentElement) {
      if (window.getComputedStyle(a).overflowX === "visible") continue;
      var left = a.getBoundingClientRect().left + a.clientLeft;
      extent.left = Math.max(extent.left, left);
      extent.right = Math.min(extent.right, left + a.clientWidth);
    }
    return extent;
  }

  // How far an element's content passes its own box (what it scrolls or clips) or the text
  // column, in px.
  function overflowOf(el, column) {
    var r = el.getBoundingClientRect();
    return Math.max(el.scrollWidth - el.clientWidth, r.right - column.right, column.left - r.left);
  }

  // The TeX source of each typeset math item, by its mjx-container.
  function texSources() {
    var map = new Map();
    var list = window.MathJax && window.MathJax.startup && window.MathJax.startup.document
      && window.MathJax.startup.document.math;
    if (!list) return map;
    Array.from(list).forEach(function (item) {
      if (item.typesetRoot) map.set(item.typesetRoot, item.math);
    });
    return map;
  }

  // Display equations cut off by their box or the column, or drawn under their number.
  function equationFindings(column) {
    var out = [];
    var tex = texSources();
    document.querySelectorAll("mjx-container[display='true']").forEach(function (box) {
      if (!column.el.contains(box)) return;
      var math = box.querySelector("mjx-math") || box;
      var holder = box.closest("div.math") || box;
      var eqno = holder.querySelector(".eqno");
      var label = "";
      if (eqno) {
        var copy = eqno.cloneNode(true);
        copy.querySelectorAll(".headerlink").forEach(function (a) { a.remove(); });
        label = short(copy.textContent, 12) + " ";
      }
      var name = "display equation " + label + "'" + short(tex.get(box) || math.textContent, 60)
        + "'";
      var content = math.getBoundingClientRect();
      var seen = visibleExtent(math, column);
      var cut = Math.max(content.right - seen.right, seen.left - content.left,
        box.scrollWidth - box.clientWidth, holder.scrollWidth - holder.clientWidth);
      if (cut > TOL) out.push({ what: name + " is cut off", px: px(cut) });
      if (eqno) {
        var n = eqno.getBoundingClientRect();
        var rows = Math.min(content.bottom, n.bottom) - Math.max(content.top, n.top);
        var under = Math.min(content.right, n.right) - Math.max(content.left, n.left);
        if (rows > TOL && under > TOL) {
          out.push({ what: name + " runs under its equation number", px: px(under) });
        }
      }
    });
    return out;
  }

  // Each line of a <pre> as {text, width}: the width of its laid-out text, clipped or not (a
  // line spans several text nodes when the output is coloured).
  function preLines(pre) {
    var lines = [];
    var range = document.createRange();
    var start = null;
    var text = "";
    function end(node, offset) {
      if (start) {
        range.setStart(start.node, start.offset);
        range.setEnd(node, offset);
        lines.push({ text: text, width: range.getBoundingClientRect().width });
      }
      start = null;
      text = "";
    }
    var walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    var last = null;
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      var s = node.textContent;
      var from = 0;
      for (var i = 0; i <= s.length; i++) {
        if (i < s.length && s[i] !== "\n") continue;
        if (i > from) {
          if (!start) start = { node: node, offset: from };
          text += s.slice(from, i);
        }
        if (i < s.length) end(node, i);
        from = i + 1;
      }
      last = node;
    }
    if (last) end(last, last.textContent.length);
    return lines;
  }

  // Printed lines of cell outputs that do not fit their output box (which lies inside the text
  // column, so this includes every line wider than the column): the widest line of each <pre>,
  // by how far it passes the box's content width (what is cut off and must be scrolled to).
  // The <pre>s found here are added to `reported`.
  function lineFindings(column, reported) {
    var out = [];
    document.querySelectorAll(".cell_output pre").forEach(function (pre) {
      if (!column.el.contains(pre)) return;
      var cs = window.getComputedStyle(pre);
      var room = pre.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
      var widest = { width: 0 };
      preLines(pre).forEach(function (line) { if (line.width > widest.width) widest = line; });
      if (widest.width - room > TOL) {
        reported.add(pre);
        out.push({ what: "printed line (" + widest.text.length + " characters) '"
          + short(widest.text, 60) + "' overflows its output box", px: px(widest.width - room) });
      }
    });
    return out;
  }

  // Code that does not fit its box: the <pre> of a code cell's input, or of any other code
  // block of the text (a doctest or a literal block of the API pages' docstrings, a code
  // fence), or the highlight block around it, whose content is wider than its box, so that
  // the reader must scroll it to read the code. One finding per cell input ("input box") or
  // code block ("code box"), naming its widest line and by how many px the content passes the
  // box (a hidden input is measured too: `details` are opened first). Cell outputs are
  // lineFindings'.
  function codeFindings(column) {
    var out = [];
    var boxes = new Set();
    document.querySelectorAll("pre").forEach(function (pre) {
      if (!column.el.contains(pre) || pre.closest(".cell_output")) return;
      boxes.add(pre.closest(".cell_input") || pre.closest("div.highlight") || pre);
    });
    boxes.forEach(function (box) {
      var over = 0;
      box.querySelectorAll("pre, div.highlight").forEach(function (el) {
        over = Math.max(over, el.scrollWidth - el.clientWidth);
      });
      if (box.matches("pre, div.highlight")) {
        over = Math.max(over, box.scrollWidth - box.clientWidth);
      }
      if (over <= 1) return;
      var pre = box.matches("pre") ? box : box.querySelector("pre");
      var widest = { text: "", width: 0 };
      preLines(pre).forEach(function (line) { if (line.width > widest.width) widest = line; });
      var kind = box.matches(".cell_input") ? "input box" : "code box";
      out.push({ what: "code line (" + widest.text.length + " characters) '"
        + short(widest.text, 60) + "' overflows its " + kind, px: px(over) });
    });
    return out;
  }

  // Text of a figure drawn in the page (an inline <svg>: the explorer's axes) that runs into
  // other text of it, an axis label into its tick labels: one finding per pair whose boxes
  // overlap at all (by more than half a px), by how far (the lesser of the two directions).
  function figureTextFindings(column) {
    var out = [];
    column.el.querySelectorAll("svg").forEach(function (svg) {
      var texts = Array.from(svg.querySelectorAll("text")).filter(function (t) {
        return t.textContent.trim();
      });
      var boxes = texts.map(function (t) { return t.getBoundingClientRect(); });
      for (var i = 0; i < texts.length; i++) {
        for (var j = i + 1; j < texts.length; j++) {
          var a = boxes[i], b = boxes[j];
          var across = Math.min(a.right, b.right) - Math.max(a.left, b.left);
          var down = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
          if (across > 0.5 && down > 0.5) {
            out.push({ what: "figure text '" + short(texts[i].textContent, 40) + "' runs into '"
              + short(texts[j].textContent, 40) + "'", px: px(Math.min(across, down)) });
          }
        }
      }
    });
    return out;
  }

  // Cell outputs (text, HTML tables) and tables whose content passes their box or the column.
  function blockFindings(column, reported) {
    var out = [];
    var selector = ".cell_output, .cell_output .output, .cell_output pre, table, "
      + ".pst-scrollable-table-container";
    // innermost first, so that a fault is named by the smallest block that shows it
    Array.from(document.querySelectorAll(selector)).reverse().forEach(function (el) {
      if (!column.el.contains(el) || el.closest("mjx-container")) return;
      var block = el.closest(".cell_output .output")
        || el.closest(".pst-scrollable-table-container") || el.closest("table")
        || el.closest(".cell_output") || el;
      var done = Array.from(reported).some(function (r) {
        return r.contains(el) || el.contains(r) || block.contains(r);
      });
      if (done) return;
      var over = overflowOf(el, column);
      if (over <= TOL) return;
      reported.add(block);
      var table = block.matches("table, .pst-scrollable-table-container")
        || block.querySelector("table") !== null;
      var output = block.closest(".cell_output") !== null;
      var kind = table ? (output ? "output table" : "table") : "output";
      out.push({ what: kind + " '" + short(visibleText(block), 60) + "' does not fit the text "
        + "column", px: px(over) });
    });
    return out;
  }

  function layoutFindings() {
    document.querySelectorAll("details").forEach(function (d) { d.open = true; });
    var column = textColumn();
    var reported = new Set();
    return lineFindings(column, reported).concat(blockFindings(column, reported))
      .concat(codeFindings(column)).concat(equationFindings(column))
      .concat(figureTextFindings(column));
  }

  function unique(list) {
    var seen = {};
    return list.filter(function (x) {
      if (seen[x]) return false;
      seen[x] = true;
      return true;
    });
  }

  function capped(list) {
    list = unique(list);
    if (list.length <= LIMIT) return list;
    return list.slice(0, LIMIT).concat(["... and " + (list.length - LIMIT) + " more"]);
  }

  function nextFrame() {
    return new Promise(function (resolve) { requestFrame(function () { resolve(); }); });
  }

  // The layout after Python narrowed the window to `width` px: once the page sees that width,
  // two animation frames let its resize handlers and observers run and the layout settle (CSS
  // media queries apply as in a window that wide). Resolves to {layout} or {error}.
  async function layoutAt(width) {
    try {
      for (var frames = 0; window.innerWidth !== width; frames++) {
        if (frames >= 100) {
          throw new Error("the window stays " + window.innerWidth + " px wide, not " + width);
        }
        await nextFrame();
      }
      await nextFrame();
      await nextFrame();
      if (document.fonts) await document.fonts.ready;
      return { layout: layoutFindings() };
    } catch (err) {
      return { error: short(String(err && err.stack || err), 300) };
    }
  }

  async function run(result) {
    try {
      await windowLoaded();
      var mj = await mathjaxFinished();
      await imagesSettled();
      var faults = [];
      if (mj) faults.push(mj);
      faults = faults
        .concat(capped(mathFaults()))
        .concat(capped(imageFaults()))
        .concat(capped(outputFaults()))
        .concat(capped(glyphFaults()));
      result.faults = faults;
      result.links = Array.prototype.map.call(document.querySelectorAll("a[href]"), function (a) {
        return a.href;
      });
      result.images = Array.prototype.map.call(document.images, function (img) {
        return img.src;
      });
      result.ids = Array.prototype.map.call(document.querySelectorAll("[id]"), function (el) {
        return el.id;
      });
      if (document.fonts) await document.fonts.ready;
      // the page's length as a reader first sees it (before the layout check opens hidden code)
      result.height = document.documentElement.scrollHeight;
      result.layout[window.innerWidth] = layoutFindings();
      result.status = "done";
    } catch (err) {
      result.status = "error";
      result.faults.push("probe error: " + short(String(err && err.stack || err), 300));
    }
    return result;
  }

  var result = { status: "running", url: location.href, faults: [], layout: {} };
  window[PROBE] = { result: result, done: run(result), layoutAt: layoutAt };
})();
