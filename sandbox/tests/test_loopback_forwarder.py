"""The loopback forwarder's parsing and its relay, on this machine's loopback (127.0.0.2 stands for the
container's own address: Linux lets it listen beside 127.0.0.1 on the same port)."""
import os
import socket
import sys
import threading
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import loopback_forwarder as lf  # noqa: E402

TCP = """  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1435 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1
   1: 00000000:0BB8 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 222 1
   2: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 333 1
   3: 0500A8C0:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 444 1
   4: 0100007F:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 555 1
   5: 0100007F:1435 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 666 1
"""
TCP6 = """  sl  local_address                         remote_address                        st
   0: 00000000000000000000000001000000:115C 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1
   1: 0000000000000000FFFF00000100007F:1A0A 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 888 1
   2: 00000000000000000000000000000000:1B58 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1
"""


class Parsing(unittest.TestCase):
    def test_decodes_both_tables(self):
        self.assertEqual(lf.decode_proc_address("0100007F"), "127.0.0.1")
        self.assertEqual(lf.decode_proc_address("0500A8C0"), "192.168.0.5")
        self.assertEqual(lf.decode_proc_address("00000000000000000000000001000000"), "::1")
        self.assertEqual(lf.decode_proc_address("0000000000000000FFFF00000100007F"), "127.0.0.1")

    def test_finds_listeners_only(self):
        listeners = lf.parse_listeners(TCP + TCP6)
        self.assertEqual(listeners[5173], [("127.0.0.1", "111")])  # the established socket (666) is left out
        self.assertEqual(listeners[8080], [("127.0.0.1", "333"), ("192.168.0.5", "444")])
        self.assertEqual(listeners[4444], [("::1", "777")])

    def test_loopback_only_ports(self):
        ports = lf.loopback_only_ports(lf.parse_listeners(TCP + TCP6), own_inodes=set())
        # 3000 and 7000 listen on every address, 8080 also on its own address, 22 is below 1024.
        self.assertEqual(ports, {5173: "127.0.0.1", 4444: "::1", 6666: "127.0.0.1"})

    def test_our_own_forward_does_not_count(self):
        ports = lf.loopback_only_ports(lf.parse_listeners(TCP), own_inodes={"444"})
        self.assertEqual(ports[8080], "127.0.0.1")

    def test_prefers_ipv4_loopback_when_both_listen(self):
        listeners = {5173: [("::1", "1"), ("127.0.0.1", "2")]}
        self.assertEqual(lf.loopback_only_ports(listeners, set()), {5173: "127.0.0.1"})

    def test_local_addresses(self):
        fib = """Main:
  +-- 0.0.0.0/0 3 0 5
     |-- 0.0.0.0
        /0 universe UNICAST
     |-- 172.17.0.5
        /32 host LOCAL
Local:
     |-- 127.0.0.1
        /32 host LOCAL
     |-- 172.17.0.5
        /32 host LOCAL
     |-- 172.17.255.255
        /32 link BROADCAST
"""
        self.assertEqual(lf.parse_local_ipv4(fib), ["172.17.0.5"])
        inet6 = (
            "00000000000000000000000000000001 01 80 10 80       lo\n"
            "fe800000000000000042acfffe110005 02 40 20 80     eth0\n"
            "20010db8000000000000000000000005 02 40 00 00     eth0\n"
        )
        self.assertEqual(lf.parse_local_ipv6(inet6), ["2001:db8::5"])


class Relay(unittest.TestCase):
    def test_relays_both_ways_to_a_loopback_listener(self):
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]

        def echo():
            conn, _ = server.accept()
            data = b""
            while True:
                chunk = conn.recv(65536)
                if not chunk:
                    break
                data += chunk
            conn.sendall(data[::-1])
            conn.close()

        threading.Thread(target=echo, daemon=True).start()
        forward = lf.open_forward(port, "127.0.0.1", ["127.0.0.2"])
        try:
            listener = forward.listeners[0]
            listener.setblocking(True)
            client = socket.create_connection(("127.0.0.2", port))
            accepted, _ = listener.accept()
            threading.Thread(target=lf.relay, args=(accepted, forward.target), daemon=True).start()
            payload = os.urandom(3 * lf.FORWARD_CHUNK + 7)
            client.sendall(payload)
            client.shutdown(socket.SHUT_WR)
            received = b""
            while True:
                chunk = client.recv(65536)
                if not chunk:
                    break
                received += chunk
            client.close()
            self.assertEqual(received, payload[::-1])
        finally:
            forward.close()
            server.close()

    def test_a_taken_address_is_a_clear_error(self):
        taken = socket.socket()
        taken.bind(("127.0.0.2", 0))
        taken.listen()
        port = taken.getsockname()[1]
        try:
            with self.assertRaises(OSError) as raised:
                lf.open_forward(port, "127.0.0.1", ["127.0.0.2"])
            self.assertIn("already listens", lf.describe_bind_error(raised.exception, port))
        finally:
            taken.close()


if __name__ == "__main__":
    unittest.main()
