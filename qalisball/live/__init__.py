"""The live-update kernel: Socket.IO rooms (rooms), what a change sends to whom (fanout), one frame per room (fastws)."""
