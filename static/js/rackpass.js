/* Rackpass page helpers, no framework (issue 12):
   - the Menu button folds the navigation on a phone (CSS shows it only below 760 px);
   - every data table sits in a .table-scroll wrapper, so a wide one scrolls inside its card and never
     the page; a wrapper that does scroll becomes a focusable, named region (keyboard users can scroll it).
   Loaded in <head> without defer so the .js class is set before the first paint. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function setupMenu() {
    var button = document.querySelector(".menu-toggle");
    var nav = button && document.getElementById(button.getAttribute("aria-controls"));
    if (!button || !nav || button.dataset.ready) return;
    button.dataset.ready = "1";
    function set(open) {
      nav.classList.toggle("open", open);
      button.setAttribute("aria-expanded", open ? "true" : "false");
    }
    button.addEventListener("click", function () {
      set(button.getAttribute("aria-expanded") !== "true");
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && nav.classList.contains("open")) {
        set(false);
        button.focus();
      }
    });
  }

  function labelFor(table) {
    var caption = table.querySelector("caption");
    if (caption) return caption.textContent.trim();
    var section = table.closest("section, .card");
    var heading = section && section.querySelector("h2, h3");
    if (heading) return heading.textContent.trim().replace(/\s+/g, " ");
    var h1 = document.querySelector("h1");
    return h1 ? h1.textContent.trim().replace(/\s+/g, " ") : "Table";
  }

  function markScrollable(wrapper) {
    if (wrapper.scrollWidth > wrapper.clientWidth + 1) {
      wrapper.setAttribute("tabindex", "0");
      wrapper.setAttribute("role", "region");
      wrapper.setAttribute("aria-label", labelFor(wrapper.querySelector("table")) + " (scrolls sideways)");
    } else {
      wrapper.removeAttribute("tabindex");
      wrapper.removeAttribute("role");
      wrapper.removeAttribute("aria-label");
    }
  }

  function wrapTables(root) {
    var scope = root && root.querySelectorAll ? root : document;
    var tables = Array.prototype.slice.call(scope.querySelectorAll("table"));
    if (scope.matches && scope.matches("table")) tables.push(scope);
    tables.forEach(function (table) {
      if (table.closest(".table-scroll") || table.closest("pre")) return;
      var wrapper = document.createElement("div");
      wrapper.className = "table-scroll";
      table.parentNode.insertBefore(wrapper, table);
      wrapper.appendChild(table);
    });
    document.querySelectorAll(".table-scroll").forEach(markScrollable);
  }

  // Long tables (five columns or more) become a card per row on a phone (rackpass.css, "stack"):
  // each cell is labelled with its column's header, which the card shows beside the value.
  function stackTables(root) {
    var scope = root && root.querySelectorAll ? root : document;
    var tables = Array.prototype.slice.call(scope.querySelectorAll("table.table"));
    if (scope.matches && scope.matches("table.table")) tables.push(scope);
    tables.forEach(function (table) {
      var headRow = table.tHead && table.tHead.rows[0];
      if (!headRow || headRow.cells.length < 5 || table.classList.contains("no-stack")) return;
      var labels = Array.prototype.map.call(headRow.cells, function (cell) {
        return cell.textContent.replace(/\s+/g, " ").trim();
      });
      table.classList.add("stack");
      Array.prototype.forEach.call(table.tBodies, function (body) {
        Array.prototype.forEach.call(body.rows, function (row) {
          if (row.cells.length !== labels.length) return;  // a note spanning the row: no labels
          Array.prototype.forEach.call(row.cells, function (cell, i) {
            if (labels[i]) cell.setAttribute("data-label", labels[i]);
          });
        });
      });
    });
  }

  // Object pickers (apps/core/pickers.py): a select searched as the user types, in the page for a
  // short list, on the server (data-picker-url) for a long one. Without the script it stays a select.
  function setupPickers(root) {
    if (!window.TomSelect) return;
    var selects = root.querySelectorAll ? root.querySelectorAll("select[data-picker]") : [];
    selects.forEach(function (select) {
      if (select.tomselect) return;
      var options = {
        allowEmptyOption: !select.required,
        maxOptions: 200,
        placeholder: "Type to search…",
        closeAfterSelect: true,
        render: {
          no_results: function () {
            return '<div class="no-results">Nothing matches what you typed.</div>';
          },
        },
      };
      var url = select.getAttribute("data-picker-url");
      if (url) {
        options.valueField = "value";
        options.labelField = "text";
        options.searchField = [];  // the server has searched already
        options.shouldLoad = function (query) { return query.length > 0; };
        options.load = function (query, callback) {
          fetch(url + "?q=" + encodeURIComponent(query), {
            credentials: "same-origin",
            headers: { Accept: "application/json" },
          })
            .then(function (response) { return response.ok ? response.json() : { results: [] }; })
            .then(function (data) { callback(data.results); })
            .catch(function () { callback(); });
        };
      }
      new window.TomSelect(select, options);
      // Tom Select points the <label> at its search box: the select it hides (and still posts)
      // leaves the accessibility tree, so a screen reader meets one "Part" box, not two.
      select.setAttribute("aria-hidden", "true");
    });
  }

  // One search (templates/base.html): "/" anywhere outside a field goes to the header's search box;
  // on the results page the arrow keys move from the box through the results, best first.
  function setupSearchKeys() {
    document.addEventListener("keydown", function (event) {
      var target = event.target;
      var typing = target.closest && target.closest("input, textarea, select, [contenteditable]");
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        var box = document.getElementById("header-search");
        if (box) {
          event.preventDefault();
          box.focus();
        }
        return;
      }
      if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
      var links = Array.prototype.slice.call(document.querySelectorAll(".search-hits a"));
      if (!links.length) return;
      var at = links.indexOf(target);
      if (at < 0 && target.id !== "search-q") return;
      event.preventDefault();
      var next = event.key === "ArrowDown" ? at + 1 : at - 1;
      if (next < 0) document.getElementById("search-q").focus();
      else if (next < links.length) links[next].focus();
    });
  }

  var resizeTimer = null;
  window.addEventListener("resize", function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(function () {
      document.querySelectorAll(".table-scroll").forEach(markScrollable);
    }, 150);
  });

  document.addEventListener("DOMContentLoaded", function () {
    setupMenu();
    setupSearchKeys();
    wrapTables(document);
    stackTables(document);
    setupPickers(document);
  });
  // Content htmx swaps in (search results, the freight panel, the task box) gets the same treatment.
  document.addEventListener("htmx:load", function (event) {
    wrapTables(event.target);
    stackTables(event.target);
    setupPickers(event.target);
  });
})();
