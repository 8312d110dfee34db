/**
 * The page's only script: client-side filters by status and suite, and the counts beside
 * them. It reads nothing but the page's own data attributes (suite sections carry their
 * counts per status), so hiding thousands of rows is a class toggle, not a walk over rows.
 * Kept free of any text from the results: the CSP admits exactly this script by its hash.
 */
export const SCRIPT = `(function () {
  'use strict';
  var STATUSES = ['pass', 'fail', 'warn', 'skip'];
  var form = document.getElementById('filters');
  if (!form) return;
  var statusBoxes = form.querySelectorAll('input[data-status]');
  var suiteBoxes = form.querySelectorAll('input[data-suite]');
  var sections = document.querySelectorAll('section.suite');
  function update() {
    var statusOn = {};
    statusBoxes.forEach(function (box) {
      statusOn[box.dataset.status] = box.checked;
      document.body.classList.toggle('hide-' + box.dataset.status, !box.checked);
    });
    var suiteOn = {};
    suiteBoxes.forEach(function (box) { suiteOn[box.dataset.suite] = box.checked; });
    var perStatus = { pass: 0, fail: 0, warn: 0, skip: 0 };
    var perSuite = {};
    var shown = 0;
    var total = 0;
    sections.forEach(function (section) {
      var key = section.dataset.suite;
      var on = suiteOn[key] !== false;
      var visible = 0;
      STATUSES.forEach(function (status) {
        var n = Number(section.dataset[status]) || 0;
        total += n;
        if (on) perStatus[status] += n;
        if (statusOn[status] !== false) visible += n;
      });
      perSuite[key] = visible;
      if (on) shown += visible;
      section.hidden = !on;
      var empty = section.querySelector('.empty');
      if (empty) empty.hidden = visible > 0;
    });
    form.querySelectorAll('[data-count-status]').forEach(function (el) {
      el.textContent = String(perStatus[el.dataset.countStatus] || 0);
    });
    form.querySelectorAll('[data-count-suite]').forEach(function (el) {
      el.textContent = String(perSuite[el.dataset.countSuite] || 0);
    });
    var out = document.getElementById('shown');
    if (out) out.textContent = 'showing ' + shown + ' of ' + total + ' checks';
  }
  function setStatuses(on) {
    statusBoxes.forEach(function (box) { box.checked = on.indexOf(box.dataset.status) >= 0; });
    update();
  }
  form.addEventListener('change', update);
  form.addEventListener('submit', function (e) { e.preventDefault(); });
  var problems = document.getElementById('only-problems');
  if (problems) problems.addEventListener('click', function () { setStatuses(['fail', 'warn']); });
  var all = document.getElementById('show-all');
  if (all) all.addEventListener('click', function () {
    suiteBoxes.forEach(function (box) { box.checked = true; });
    setStatuses(STATUSES);
  });
  update();
})();`;
