#!/usr/bin/env python3
"""symserver.py: a throwaway symbol server for tests/test_symbol_server.sh.

Serves the files under ROOT on 127.0.0.1, on a free port it writes to
PORT_FILE once listening, one thread per request.  ROOT/.behaviour (lines
"PATH WHAT [N]") makes a path misbehave:
  PATH slow N       wait N seconds before answering
  PATH truncate N   say the whole Content-Length, send only N bytes, close
  PATH status N     answer HTTP N with no body
  PATH trickle N    say the whole Content-Length, send one byte a second
                    for N seconds, then the rest
Paths under /private/ need "Authorization: Bearer TOKEN" (--token), else 401.
Each request is logged to LOG as "start|end MONOTONIC PATH auth=yes|no|bad".
Exits by itself after --lifetime seconds (a test that dies cannot leave it
behind for long); the test stops it before that.
"""
import argparse
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--token", default="")
    ap.add_argument("--lifetime", type=float, default=240)
    a = ap.parse_args()
    lock = threading.Lock()

    def log(what, path, auth):
        with lock, open(a.log, "a") as f:
            f.write("%s %.3f %s auth=%s\n" % (what, time.monotonic(), path, auth))

    def behaviour(path):
        try:
            lines = open(os.path.join(a.root, ".behaviour")).read().splitlines()
        except OSError:
            return {}
        out = {}
        for line in lines:
            parts = line.split()
            if len(parts) == 3 and parts[0] == path:
                out[parts[1]] = int(parts[2])
        return out

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):
            pass

        def do_GET(self):
            path = self.path.split("?")[0]
            got = self.headers.get("Authorization")
            auth = "no" if got is None else ("yes" if a.token and got == "Bearer " + a.token else "bad")
            log("start", path, auth)
            try:
                self.answer(path, auth)
            except (BrokenPipeError, ConnectionResetError):
                pass   # the client gave up (a size limit, a timeout)
            finally:
                log("end", path, auth)

        def answer(self, path, auth):
            b = behaviour(path)
            if "slow" in b:
                time.sleep(b["slow"])
            if path.startswith("/private/") and auth != "yes":
                return self.empty(401)
            if "status" in b:
                return self.empty(b["status"])
            full = os.path.realpath(os.path.join(a.root, path.lstrip("/")))
            if not full.startswith(os.path.realpath(a.root) + os.sep) or not os.path.isfile(full):
                return self.empty(404)
            data = open(full, "rb").read()
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            if "truncate" in b:
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(data[: b["truncate"]])
                self.wfile.flush()
                self.close_connection = True
                return
            self.end_headers()
            if "trickle" in b:
                for i in range(min(b["trickle"], len(data))):
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
                    time.sleep(1)
                data = data[b["trickle"]:]
            self.wfile.write(data)

        def empty(self, code):
            self.send_response(code)
            self.send_header("Content-Length", "0")
            self.end_headers()

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    threading.Timer(a.lifetime, srv.shutdown).start()
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
