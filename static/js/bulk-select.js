/* "Select every row on this page" for list bulk actions (issue 12): a header checkbox with
   data-select-all="<name>" ticks or unticks every checkbox named <name> in its form. Delegated from
   the document, so it keeps working after htmx swaps the results table in. */
(function () {
  "use strict";
  function boxes(toggle) {
    var form = toggle.form || toggle.closest("form");
    if (!form) return [];
    return Array.prototype.slice.call(
      form.querySelectorAll('input[type="checkbox"][name="' + toggle.dataset.selectAll + '"]')
    );
  }
  document.addEventListener("change", function (event) {
    var target = event.target;
    if (!(target instanceof HTMLInputElement)) return;
    if (target.dataset.selectAll) {
      boxes(target).forEach(function (box) {
        box.checked = target.checked;
      });
      return;
    }
    // A row ticked or unticked by hand: the header says whether all, none or some are ticked.
    var form = target.form;
    var toggle = form && form.querySelector("input[data-select-all='" + target.name + "']");
    if (!toggle) return;
    var all = boxes(toggle);
    var ticked = all.filter(function (box) { return box.checked; }).length;
    toggle.checked = ticked === all.length && ticked > 0;
    toggle.indeterminate = ticked > 0 && ticked < all.length;
  });
})();
