"""A real SMTP server for the mail tests (Debian's python3-aiosmtpd), run by /usr/bin/python3.

Usage: smtp_server.py PORT OUT.jsonl [--tls CERT KEY] [--auth USER:PASSWORD]
Accepts every message and appends one JSON line per recipient to OUT.jsonl: the envelope,
the headers the tests check, the decoded text and HTML parts, whether it came over TLS and
as which user. --tls offers STARTTLS; --auth requires AUTH (which aiosmtpd only allows after
STARTTLS). Prints "listening PORT" once it accepts connections; stops on SIGTERM.
"""
import email
import email.policy
import json
import signal
import ssl
import sys
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult


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
            "tls": session.ssl is not None,
            "user": session.auth_data if session.authenticated else "",
            "text": text.get_content() if text else "",
            "html": html.get_content() if html else "",
        }
        with self.lock, open(self.path, "a", encoding="utf-8") as out:
            for rcpt in envelope.rcpt_tos:
                out.write(json.dumps(dict(record, rcpt=rcpt)) + "\n")
        return "250 OK"


def main():
    port, path, rest = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    options = {}
    if "--tls" in rest:
        i = rest.index("--tls")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(rest[i + 1], rest[i + 2])
        options["tls_context"] = context
    if "--auth" in rest:
        user, password = rest[rest.index("--auth") + 1].split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = auth_data.login.decode() == user and auth_data.password.decode() == password
            return AuthResult(success=ok, handled=False, auth_data=user if ok else None)

        options.update(authenticator=authenticator, auth_required=True, auth_require_tls=True)
    controller = Controller(Sink(path), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print("listening", port, flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
