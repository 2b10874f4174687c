"""Per-keystroke latency of fsindex's search provider, as GNOME Shell and KRunner call it
(issue 27). Run by provider-bench.sh inside a session bus whose service folder holds the
provider's activation files; needs jeepney (PyPI), a pure-Python D-Bus client.

Each word is typed from 3 letters to its end (the provider waits for three): the first
keystroke is GetInitialResultSet, the others GetSubsearchResultSet with the previous ids, each
followed by GetResultMetas of the first 5 ids (what the Shell shows). KRunner: one Match per
keystroke (results and completions). Prints median, p90 and max per kind, over `rounds` rounds.
"""
import statistics, sys, time
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection

WORDS = ["inotify", "mutex", "copyright", "socket", "unicode", "fanotify", "spotlight", "deadlock"]
rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
conn = open_dbus_connection(bus="SESSION")
gs = DBusAddress("/org/fsindex/SearchProvider", bus_name="org.fsindex.SearchProvider", interface="org.gnome.Shell.SearchProvider2")
kr = DBusAddress("/runner", bus_name="org.fsindex.KRunner", interface="org.kde.krunner1")

def call(addr, method, sig, *args):
    reply = conn.send_and_get_reply(new_method_call(addr, method, sig, args), timeout=60)
    if reply.header.message_type.name == "error":
        raise RuntimeError(f"{method}: {reply.body}")
    return reply.body

call(gs, "GetInitialResultSet", "as", ["warmup"])   # activation, first open
gnome, gnome_first, krunner = [], [], []
for r in range(rounds):
    for word in WORDS:
        prev = None
        for n in range(3, len(word) + 1):
            terms = [word[:n]]
            t = time.perf_counter()
            ids = call(gs, "GetInitialResultSet", "as", terms)[0] if prev is None else call(gs, "GetSubsearchResultSet", "asas", prev, terms)[0]
            call(gs, "GetResultMetas", "as", ids[:5])
            ms = (time.perf_counter() - t) * 1000
            (gnome_first if prev is None else gnome).append(ms)
            prev = ids
        for n in range(3, len(word) + 1):
            t = time.perf_counter()
            call(kr, "Match", "s", word[:n])
            krunner.append((time.perf_counter() - t) * 1000)

def q(xs, p): return sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
for name, xs in [("gnome_keystroke_narrowing", gnome), ("gnome_first_keystroke", gnome_first), ("krunner_match", krunner), ("all_gnome", gnome + gnome_first)]:
    print(f"{name}\tmedian {statistics.median(xs):.2f} ms\tp90 {q(xs, 0.9):.2f} ms\tmax {max(xs):.2f} ms\tn={len(xs)}")
