// The page's own script (served from /static: the Content-Security-Policy allows no inline script).
document.addEventListener('DOMContentLoaded', function () {
  // show the server's readable 4xx message in place instead of dropping it (htmx skips error responses by default)
  document.body.addEventListener('htmx:beforeSwap', function (e) {
    var s = e.detail.xhr.status;
    if (s >= 400 && s < 500) { e.detail.shouldSwap = true; e.detail.isError = false; }
  });
  // the operator's name outlives page loads on this device (never sent anywhere but with a record)
  var f = document.getElementById('operator');
  if (f) {
    if (!f.value) { f.value = localStorage.getItem('certirank-operator') || ''; }
    f.addEventListener('input', function () { localStorage.setItem('certirank-operator', f.value); });
  }
});
