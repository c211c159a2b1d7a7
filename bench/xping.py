#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An X "ping probe" for bench/window_scale.sh: how long the window's GUI thread is unavailable.

    xping.py probe PID OUT      finds PID's top-level window, then pings it every 10 ms until
                                the window is gone; writes "shown T" once, then "ping SENT LATENCY_MS",
                                at the end "gone T" (the window's unmap or destroy seen) and, for a
                                ping still out then, "unanswered SENT MS" (counted until it went)
                                SIGUSR1 asks the window to close (as "close" does) and writes
                                "close T": the probe knows the window already, so the close goes
                                out at once (a "close" process spends ~0.9 s starting and finding it)
    xping.py probe FILE OUT     the same, started before the window's process: once watching for
                                windows it writes "ready T" to OUT, then takes the PID from FILE as
                                soon as it exists (written whole, e.g. by mv), so neither its own
                                start nor its search competes with the window's start for a core
    xping.py close PID          asks PID's window to close, as a window manager's close button does

The ping is the window manager's _NET_WM_PING: a ClientMessage sent to the window, which Qt's xcb
plugin answers on the GUI thread, while it processes X events (QXcbWindow::handleClientMessageEvent
sends it back to the root window). So a reply is late by exactly as long as the GUI thread was busy
elsewhere: a blocking query, a model rebuilt row by row, a list freed, a paint of 10,000 rows.
One ping is outstanding at a time; the next goes 10 ms after the previous one was sent, or at once
when its reply came later than that. Times are wall-clock seconds (time.time()), as the bench's
phase marks.

Talks to libxcb through ctypes (python3-xcffib / python3-xlib are not needed).
"""
import ctypes
import ctypes.util
import os
import select
import signal
import sys
import time

xcb = ctypes.CDLL(ctypes.util.find_library("xcb") or "libxcb.so.1")

XCB_CLIENT_MESSAGE = 33
XCB_DESTROY_NOTIFY = 17
XCB_UNMAP_NOTIFY = 18
XCB_MAP_NOTIFY = 19
XCB_EVENT_MASK_STRUCTURE_NOTIFY = 0x20000
XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY = 0x80000
XCB_CW_EVENT_MASK = 0x800
XCB_MAP_STATE_VIEWABLE = 2
INTERVAL = 0.010


class Cookie(ctypes.Structure):
    _fields_ = [("sequence", ctypes.c_uint)]


class ScreenIterator(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint32)), ("rem", ctypes.c_int), ("index", ctypes.c_int)]


class ClientMessage(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("response_type", ctypes.c_uint8), ("format", ctypes.c_uint8), ("sequence", ctypes.c_uint16),
                ("window", ctypes.c_uint32), ("type", ctypes.c_uint32), ("data", ctypes.c_uint32 * 5)]


for name, restype in [("xcb_connect", ctypes.c_void_p), ("xcb_get_setup", ctypes.c_void_p),
                      ("xcb_setup_roots_iterator", ScreenIterator), ("xcb_intern_atom", Cookie),
                      ("xcb_intern_atom_reply", ctypes.c_void_p), ("xcb_query_tree", Cookie),
                      ("xcb_query_tree_reply", ctypes.c_void_p), ("xcb_query_tree_children", ctypes.c_void_p),
                      ("xcb_query_tree_children_length", ctypes.c_int), ("xcb_get_property", Cookie),
                      ("xcb_get_property_reply", ctypes.c_void_p), ("xcb_get_property_value", ctypes.c_void_p),
                      ("xcb_get_property_value_length", ctypes.c_int), ("xcb_get_window_attributes", Cookie),
                      ("xcb_get_window_attributes_reply", ctypes.c_void_p), ("xcb_send_event", Cookie),
                      ("xcb_change_window_attributes", Cookie), ("xcb_flush", ctypes.c_int),
                      ("xcb_poll_for_event", ctypes.c_void_p), ("xcb_get_file_descriptor", ctypes.c_int),
                      ("xcb_connection_has_error", ctypes.c_int)]:
    getattr(xcb, name).restype = restype
libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]


class Display:
    def __init__(self):
        self.c = ctypes.c_void_p(xcb.xcb_connect(None, None))
        if xcb.xcb_connection_has_error(self.c):
            sys.exit("xping: cannot open the X display " + os.environ.get("DISPLAY", "(DISPLAY unset)"))
        screen = xcb.xcb_setup_roots_iterator(ctypes.c_void_p(xcb.xcb_get_setup(self.c)))
        self.root = screen.data[0]

    def atom(self, name):
        raw = name.encode()
        reply = xcb.xcb_intern_atom_reply(self.c, xcb.xcb_intern_atom(self.c, 0, len(raw), raw), None)
        value = ctypes.cast(reply, ctypes.POINTER(ctypes.c_uint32))[2]
        libc.free(reply)
        return value

    def children(self, window):
        reply = xcb.xcb_query_tree_reply(self.c, xcb.xcb_query_tree(self.c, window), None)
        if not reply:
            return []
        count = xcb.xcb_query_tree_children_length(ctypes.c_void_p(reply))
        ids = ctypes.cast(xcb.xcb_query_tree_children(ctypes.c_void_p(reply)), ctypes.POINTER(ctypes.c_uint32))
        result = [ids[i] for i in range(count)]
        libc.free(reply)
        return result

    def cardinal(self, window, atom):
        reply = xcb.xcb_get_property_reply(self.c, xcb.xcb_get_property(self.c, 0, window, atom, 6, 0, 1), None)
        if not reply:
            return None
        value = None
        if xcb.xcb_get_property_value_length(ctypes.c_void_p(reply)) >= 4:
            value = ctypes.cast(xcb.xcb_get_property_value(ctypes.c_void_p(reply)), ctypes.POINTER(ctypes.c_uint32))[0]
        libc.free(reply)
        return value

    def viewable(self, window):
        reply = xcb.xcb_get_window_attributes_reply(self.c, xcb.xcb_get_window_attributes(self.c, window), None)
        if not reply:
            return False
        state = ctypes.cast(reply, ctypes.POINTER(ctypes.c_uint8))[26]  # map_state
        libc.free(reply)
        return state == XCB_MAP_STATE_VIEWABLE

    def send(self, window, type_atom, data):
        event = ClientMessage(XCB_CLIENT_MESSAGE, 32, 0, window, type_atom, (ctypes.c_uint32 * 5)(*data))
        xcb.xcb_send_event(self.c, 0, window, 0, ctypes.byref(event))
        xcb.xcb_flush(self.c)


def watch_root(display):
    """Map, unmap and destroy notifications of top-level windows, and the ping replies (Qt sends
    them to the root window, for its StructureNotify (Qt 6) or SubstructureNotify listeners)."""
    mask = ctypes.c_uint32(XCB_EVENT_MASK_STRUCTURE_NOTIFY | XCB_EVENT_MASK_SUBSTRUCTURE_NOTIFY)
    xcb.xcb_change_window_attributes(display.c, display.root, XCB_CW_EVENT_MASK, ctypes.byref(mask))
    xcb.xcb_flush(display.c)


def find_window(display, pid, timeout):
    """PID's mapped top-level window (the main window: Qt sets _NET_WM_PID on its windows before
    mapping it). Looks once at the windows there are, then waits for map notifications (watch_root
    first): no polling, so the search costs the window's start nothing."""
    pid_atom = display.atom("_NET_WM_PID")
    for window in display.children(display.root):
        if display.cardinal(window, pid_atom) == pid and display.viewable(window):
            return window
    fd = xcb.xcb_get_file_descriptor(display.c)
    deadline = time.time() + timeout
    while time.time() < deadline:
        while True:
            raw = xcb.xcb_poll_for_event(display.c)
            if not raw:
                break
            event = ctypes.cast(raw, ctypes.POINTER(ClientMessage))[0]
            mapped = event.type if event.response_type & 0x7F == XCB_MAP_NOTIFY else None
            libc.free(ctypes.c_void_p(raw))
            if mapped is not None and display.cardinal(mapped, pid_atom) == pid:
                return mapped
        select.select([fd], [], [], max(0.0, min(0.5, deadline - time.time())))
    sys.exit(f"xping: no window of pid {pid} within {timeout} s")


def pid_from(argument, out):
    """The PID itself, or (a path) the one written to that file once it appears."""
    if argument.isdigit():
        return int(argument)
    out.write(f"ready {time.time():.6f}\n")
    while not os.path.exists(argument):
        time.sleep(0.001)
    with open(argument) as file:
        return int(file.read())


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def probe(target, out_path):
    close_asked = []
    signal.signal(signal.SIGUSR1, lambda *_: close_asked.append(True))
    display = Display()
    watch_root(display)
    protocols, ping = display.atom("WM_PROTOCOLS"), display.atom("_NET_WM_PING")
    fd = xcb.xcb_get_file_descriptor(display.c)
    # SIGUSR1 wakes the select below through this pipe; the close is sent from the loop.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    with open(out_path, "w", buffering=1) as out:
        pid = pid_from(target, out)
        window = find_window(display, pid, 120)
        out.write(f"shown {time.time():.6f}\n")
        serial, sent_at, next_at, checked_at, gone_at = 0, None, time.time(), 0.0, None
        while True:
            if close_asked:
                close_asked.clear()
                out.write(f"close {time.time():.6f}\n")
                display.send(window, protocols, [display.atom("WM_DELETE_WINDOW"), 0, 0, 0, 0])
            now = time.time()
            if sent_at is None and now >= next_at:
                serial += 1
                sent_at = now
                next_at = now + INTERVAL
                display.send(window, protocols, [ping, serial, window, 0, 0])
            # A ping unanswered for long: the window may have closed (then it is no stall).
            if sent_at is not None and now - sent_at > 0.05 and now - checked_at > 0.05:
                checked_at = now
                if not alive(pid) or not display.viewable(window):
                    break  # gone, unmapped or destroyed: the window has closed
            # Drain what xcb has queued (a reply above may have read events) before waiting.
            while True:
                raw = xcb.xcb_poll_for_event(display.c)
                if not raw:
                    break
                event = ctypes.cast(raw, ctypes.POINTER(ClientMessage))[0]
                kind = event.response_type & 0x7F
                is_reply = kind == XCB_CLIENT_MESSAGE and event.data[0] == ping \
                    and event.data[2] == window and event.data[1] == serial
                # Unmap and destroy notifications name the window where a client message has its type.
                is_gone = kind in (XCB_UNMAP_NOTIFY, XCB_DESTROY_NOTIFY) and event.type == window
                libc.free(ctypes.c_void_p(raw))
                if is_reply and sent_at is not None:
                    received = time.time()
                    out.write(f"ping {sent_at:.6f} {(received - sent_at) * 1000:.1f}\n")
                    sent_at = None
                if is_gone:
                    gone_at = time.time()
                    break
            if gone_at is not None:
                out.write(f"gone {gone_at:.6f}\n")
                break
            if xcb.xcb_connection_has_error(display.c):
                break
            if sent_at is None and time.time() < next_at:
                wait([fd, wake_read], max(0.0, next_at - time.time()), wake_read)
            elif sent_at is not None:
                wait([fd, wake_read], 0.05, wake_read)
        if sent_at is not None:
            # Unanswered until the window went (its unmap seen, or else found unmapped by the
            # check above, up to 50 ms late): after that there was no window to answer for.
            until = gone_at if gone_at is not None else time.time()
            out.write(f"unanswered {sent_at:.6f} {(until - sent_at) * 1000:.1f}\n")


def wait(fds, timeout, wake_read):
    ready, _, _ = select.select(fds, [], [], timeout)
    if wake_read in ready:
        while True:
            try:
                if not os.read(wake_read, 64):
                    break
            except BlockingIOError:
                break


def close(pid):
    display = Display()
    watch_root(display)
    window = find_window(display, pid, 10)
    display.send(window, display.atom("WM_PROTOCOLS"), [display.atom("WM_DELETE_WINDOW"), 0, 0, 0, 0])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "probe":
        probe(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "close":
        close(int(sys.argv[2]))
    else:
        sys.exit(__doc__)
