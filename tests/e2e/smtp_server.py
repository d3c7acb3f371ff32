"""A real SMTP server for the mail tests (Debian's python3-aiosmtpd), run by /usr/bin/python3.

Usage: smtp_server.py PORT OUT.jsonl
Accepts every message and appends one JSON line per recipient to OUT.jsonl: the envelope,
the headers the tests check, and the decoded text and HTML parts. Prints "listening PORT"
once it accepts connections; stops on SIGTERM.
"""
import email
import email.policy
import json
import signal
import sys
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        text = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        record = {
            "mail_from": envelope.mail_from,
            "subject": str(msg["Subject"] or ""),
            "from": str(msg["From"] or ""),
            "to": str(msg["To"] or ""),
            "list_unsubscribe": str(msg["List-Unsubscribe"] or ""),
            "list_unsubscribe_post": str(msg["List-Unsubscribe-Post"] or ""),
            "message_id": str(msg["Message-ID"] or ""),
            "text": text.get_content() if text else "",
            "html": html.get_content() if html else "",
        }
        with self.lock, open(self.path, "a", encoding="utf-8") as out:
            for rcpt in envelope.rcpt_tos:
                out.write(json.dumps(dict(record, rcpt=rcpt)) + "\n")
        return "250 OK"


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    controller = Controller(Sink(path), hostname="127.0.0.1", port=port)
    controller.start()
    print("listening", port, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
