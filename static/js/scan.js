/* Scan-as-you-go receiving and packing (templates/warehouse/receive.html and pack.html).

A USB scanner types a serial and Enter into the scan box. Each scan is answered at once: expected
(its line and package), extra, scanned already, belongs to another shipment, or a unit known
elsewhere, with running "3 of 4" counts per line and package. Nothing is recorded here: receiving
fills the form's "Serials scanned" box and packing ticks the unit's box; the page's own form
records the receipt or the package once, on submit, through the same service as without a scanner.

What was scanned is kept in sessionStorage until the form is sent, so a reload loses nothing; a
page that comes back refused has its serials in the form and is answered again from them. Loaded
from the site's own files (no inline script: CSP). */
(function () {
  "use strict";

  function lines(text) {
    return (text || "").split(/[\n,;]+/).map(function (s) { return s.trim(); }).filter(Boolean);
  }

  function setup(panel) {
    var mode = panel.dataset.scanMode;
    var input = panel.querySelector(".scan-input");
    var answer = panel.querySelector(".scan-answer");
    var log = panel.querySelector(".scan-log");
    var total = panel.querySelector("[data-scan-total]");
    var target = panel.dataset.scanTarget ? document.getElementById(panel.dataset.scanTarget) : null;
    var legSelect = panel.dataset.scanLeg ? document.getElementById(panel.dataset.scanLeg) : null;
    var form = panel.dataset.scanForm ? document.getElementById(panel.dataset.scanForm) : null;
    var key = "rackpass-scan:" + panel.dataset.scanKey;
    var scans = [];
    var queue = Promise.resolve();

    function boxes() {
      return Array.prototype.slice.call(document.querySelectorAll("input[type=checkbox][data-serial]"));
    }

    function save() {
      try { sessionStorage.setItem(key, JSON.stringify(scans)); } catch (e) { /* private mode: no memory */ }
    }

    function counts() {
      var perLine = {}, perPackage = {}, expected = 0;
      if (mode === "pack") {
        boxes().forEach(function (box) {
          if (box.checked) {
            perLine[box.dataset.line] = (perLine[box.dataset.line] || 0) + 1;
            expected += 1;
          }
        });
      } else {
        scans.forEach(function (s) {
          if (s.verdict !== "expected") { return; }
          expected += 1;
          if (s.line) { perLine[s.line] = (perLine[s.line] || 0) + 1; }
          if (s.package) { perPackage[s.package] = (perPackage[s.package] || 0) + 1; }
        });
      }
      document.querySelectorAll("[data-scan-line]").forEach(function (el) {
        var n = perLine[el.dataset.scanLine] || 0;
        el.textContent = n + " of " + el.dataset.scanOf + (mode === "pack" ? " ticked" : " scanned");
        el.classList.toggle("done", String(n) === el.dataset.scanOf);
      });
      document.querySelectorAll("[data-scan-package]").forEach(function (el) {
        var n = perPackage[el.dataset.scanPackage] || 0;
        el.textContent = n + " of " + el.dataset.scanOf + " scanned";
        el.classList.toggle("done", String(n) === el.dataset.scanOf);
      });
      if (total) { total.textContent = String(expected); }
    }

    function show(scan) {
      answer.className = "scan-answer " + scan.verdict;
      answer.textContent = scan.label + ": " + scan.message;
      var item = document.createElement("li");
      item.className = scan.verdict;
      var tag = document.createElement("span");
      tag.className = "tag";
      tag.textContent = scan.label;
      item.appendChild(tag);
      item.appendChild(document.createTextNode(" " + scan.message));
      log.insertBefore(item, log.firstChild);
    }

    function recordable(scan) {
      // Expected boxes and extras go on the receipt (an extra is a discrepancy to resolve); a box
      // of another shipment, or one the books have in stock already, is set aside, not received.
      return scan.verdict === "expected" || scan.verdict === "extra";
    }

    function fillTarget() {
      if (!target) { return; }
      // Serials typed into the box by hand stay; those scanned here are the scans' own.
      var scanned = {};
      scans.forEach(function (s) { scanned[s.serial.toLowerCase()] = true; });
      var typed = lines(target.value).filter(function (s) { return !scanned[s.toLowerCase()]; });
      target.value = typed.concat(scans.filter(recordable).map(function (s) { return s.serial; })).join("\n");
    }

    function seen(serial) {
      var low = serial.toLowerCase();
      return scans.some(function (s) { return s.serial.toLowerCase() === low && s.verdict !== "duplicate"; });
    }

    function ask(serial) {
      var url = panel.dataset.scanCheck + "?serial=" + encodeURIComponent(serial);
      if (legSelect && legSelect.value) { url += "&leg=" + encodeURIComponent(legSelect.value); }
      return fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (response) { return response.json(); })
        .catch(function () {
          return { serial: serial, verdict: "error", label: "Not checked", message: "No answer from the server: scan it again." };
        });
    }

    function scan(serial, quiet) {
      serial = serial.trim();
      if (!serial) { return Promise.resolve(); }
      if (mode === "pack") {
        var low = serial.toLowerCase();
        var box = boxes().filter(function (b) { return b.dataset.serial.toLowerCase() === low; })[0];
        if (box) {
          var done = {
            serial: box.dataset.serial, line: box.dataset.line,
            verdict: box.checked ? "duplicate" : "expected",
            label: box.checked ? "Scanned already" : "Ticked",
            message: box.dataset.serial + (box.checked ? " is ticked already." : ": line " + box.dataset.line + ", ticked for this package."),
          };
          box.checked = true;
          scans.push(done);
          if (!quiet) { show(done); }
          counts();
          save();
          return Promise.resolve();
        }
      } else if (seen(serial)) {
        var again = { serial: serial, verdict: "duplicate", label: "Scanned already", message: serial + " was scanned already: counted once." };
        show(again);
        return Promise.resolve();
      }
      return ask(serial).then(function (result) {
        if (result.error) {
          result = { serial: serial, verdict: "error", label: "Not checked", message: result.error };
        }
        if (result.verdict !== "error") { scans.push(result); }
        show(result);
        fillTarget();
        counts();
        save();
      });
    }

    input.addEventListener("keydown", function (event) {
      if (event.key !== "Enter") { return; }
      event.preventDefault();  // a scanner's Enter answers the scan; it never sends the form
      var serial = input.value;
      input.value = "";
      queue = queue.then(function () { return scan(serial); });
    });
    boxes().forEach(function (box) { box.addEventListener("change", counts); });
    if (form) {
      form.addEventListener("submit", function () {
        try { sessionStorage.removeItem(key); } catch (e) { /* nothing kept */ }
      });
    }

    // Back after a reload: the scans kept; back refused: the form's serials, answered again.
    var kept = [];
    try { kept = JSON.parse(sessionStorage.getItem(key) || "[]"); } catch (e) { kept = []; }
    if (mode === "pack") {
      if (!boxes().some(function (b) { return b.checked; })) {
        kept.forEach(function (s) { if (s.verdict === "expected") { scan(s.serial, true); } });
      }
      scans = scans.filter(function (s) { return s.verdict === "expected"; });
      counts();
    } else if (target && lines(target.value).length) {
      lines(target.value).forEach(function (serial) { queue = queue.then(function () { return scan(serial); }); });
    } else {
      kept.slice().forEach(function (s) { scans.push(s); show(s); });
      fillTarget();
      counts();
    }
    // A scan made while the page was still loading typed its serial but its Enter found no one
    // listening: answer it now.
    if (input.value.trim()) {
      var early = input.value;
      input.value = "";
      queue = queue.then(function () { return scan(early); });
    }
    panel.dataset.scanReady = "true";  // each scan is answered from here on
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll(".scan-panel").forEach(setup);
  });
})();
