"""The composition root: the app factory, serving (gevent), the cluster launcher and its spectator processes, the demo."""
