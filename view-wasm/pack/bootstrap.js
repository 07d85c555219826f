// The page's first script: listens to the host before the program is unpacked and
// offers Reload if the program never starts. Inlined by pack.mjs (and by trunk in
// development, see index.html).
/* The host may speak before the program is unpacked: listen now, keep what comes, and
   hand it over in order when the bridge subscribes. Only the parent frame is heard. */
(function () {
  var queue = [], sink = null;
  window.addEventListener("message", function (e) {
    if (e.source !== window.parent || window.parent === window) return;
    /* The loader's own answers (its handshake, the code it asks for) are its. */
    if (pp.claim && pp.claim(e.data)) return;
    if (sink) sink(e.data); else queue.push(e.data);
  });
  var pp = window.__pp = {
    t0: performance.now(),
    listen: function (f) { sink = f; var q = queue; queue = []; for (var i = 0; i < q.length; i++) f(q[i]); },
    fail: function (err) {
      pp.failed = true;
      pp.error = String(err && err.message || err);
      var fr = (document.documentElement.lang || "fr").indexOf("en") !== 0;
      var box = document.getElementById("pp-boot");
      if (!box) return;
      box.setAttribute("role", "alert");
      /* No longer loading: the skeleton gives way to the reason and Reload. */
      box.setAttribute("aria-busy", "false");
      box.className = "pp-boot-failed";
      box.textContent = "";
      var p = document.createElement("p");
      p.textContent = fr ? "La vue n'a pas pu démarrer dans ce cadre." : "The view could not start in this frame.";
      var b = document.createElement("button");
      b.type = "button";
      b.setAttribute("data-act", "reload");
      b.textContent = fr ? "Recharger" : "Reload";
      b.onclick = function () { box.textContent = ""; pp.boot(); };
      box.appendChild(p);
      /* The reason, when there is one (the server's, in its words: another build, say). */
      if (pp.error) { var why = document.createElement("p"); why.textContent = pp.error; box.appendChild(why); }
      box.appendChild(b);
    }
  };
  /* Nothing mounted after 8 s and no loader at work (it owns its deadlines; a frame that
     never gets to run the program): offer Reload. */
  setTimeout(function () { if (!pp.mounted && !pp.failed && !pp.loading) pp.fail(""); }, 8000);
})();
