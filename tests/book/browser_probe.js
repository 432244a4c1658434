// Rendering probe injected by tests/browser.py into a copy of each built page.
// After the page has loaded and MathJax has finished its first typeset, it collects what the
// browser saw and writes it as JSON into a hidden PRE element (PROBE_ID). Python reads that element from
// the DOM that `chromium --dump-dom` prints; "status": "done" is written only at the very end, so
// a page whose probe never finishes (MathJax hanging, script error) is reported by Python.
(function () {
  "use strict";
  var PROBE_ID = "cotbook-probe";
  var WAIT_MS = __WAIT_MS__; // how long (virtual time) to wait for MathJax and for images
  var LIMIT = 20; // findings kept per kind, so a page full of one fault stays readable

  function sleep(ms) {
    return new Promise(function (resolve) { setTimeout(resolve, ms); });
  }

  function short(text, n) {
    text = (text || "").replace(/\s+/g, " ").trim();
    n = n || 120;
    return text.length > n ? text.slice(0, n - 1) + "\u2026" : text;
  }

  function write(result) {
    var pre = document.getElementById(PROBE_ID);
    if (!pre) {
      pre = document.createElement("pre");
      pre.id = PROBE_ID;
      pre.hidden = true;
      document.body.appendChild(pre);
    }
    pre.textContent = JSON.stringify(result);
  }

  function windowLoaded() {
    if (document.readyState === "complete") return Promise.resolve();
    return new Promise(function (resolve) { window.addEventListener("load", resolve); });
  }

  // Resolves to a fault string, or null when MathJax typeset the page (or the page has no math).
  async function mathjaxFinished() {
    var hasMath = document.querySelector(".math, mjx-container") !== null;
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
          if (skip.has(el.tagName.toUpperCase()) || el.id === PROBE_ID) {
            return NodeFilter.FILTER_REJECT;
          }
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
  function visibleText(el) {
    var copy = el.cloneNode(true);
    copy.querySelectorAll("button, .copybtn").forEach(function (b) { b.remove(); });
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

  async function run() {
    var result = { status: "running", url: location.href, faults: [] };
    write(result);
    try {
      await windowLoaded();
      var mj = await mathjaxFinished();
      await imagesSettled();
      var faults = [];
      if (mj) faults.push(mj);
      faults = faults
        .concat(capped(mathFaults()))
        .concat(capped(imageFaults()))
        .concat(capped(outputFaults()));
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
      result.status = "done";
    } catch (err) {
      result.status = "error";
      result.faults.push("probe error: " + short(String(err && err.stack || err), 300));
    }
    write(result);
  }

  run();
})();
