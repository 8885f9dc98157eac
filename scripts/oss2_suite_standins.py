"""Local stand-ins for the Alibaba Cloud endpoints oss2's tests reach by name (see scripts/oss2-suite.sh).

Some of oss2's tests talk to services by their public names, not through OSS_TEST_ENDPOINT:

* oss2's KMS crypto bucket (oss2.CryptoBucket with oss2.AliKMSProvider, which test_upload and test_download pick at
  random) calls Alibaba Cloud KMS, https://kms.<region>.aliyuncs.com, through aliyun-python-sdk-core, for a data key
  per object (GenerateDataKey), to encrypt the object's IV (Encrypt) and to unwrap both again (Decrypt).
* test_multipart_sequential and test_upload_sequenial create a bucket at http://oss-cn-shanghai.aliyuncs.com.

Nothing here patches oss2 or the tests. The harness sets the standard proxy variables, which requests and
aliyun-python-sdk-core honour, to `AliyunProxy`, and ALIBABA_CLOUD_CA_BUNDLE (aliyun-python-sdk-core's setting for
the CA certificates it trusts) to the certificate of a CA made for the run:

* an `http://<bucket>.oss-<region>.aliyuncs.com/...` request (absolute form, as a client sends it to a proxy) is
  relayed to the local OSS server, which serves the bucket named by the Host;
* `CONNECT kms.<region>.aliyuncs.com:443` is tunnelled to `KMSStandIn`, which presents a certificate for that name
  signed by the run's CA; the client's TLS handshake and certificate check happen as with the real service;
* any other name gets its connection closed unanswered (a network error to the client, as the name would be
  unreachable here without the proxy), so no request leaves the machine.

`KMSStandIn` implements the three KMS actions oss2 uses, with real cryptography: it holds a customer master key
(CMK: 32 random bytes made at start, kept in memory) under a key id; GenerateDataKey returns 32 fresh random bytes and
the same bytes sealed with the CMK (AES-256-GCM, the encryption context as associated data), Encrypt seals a given
plaintext, Decrypt opens a blob and returns its plaintext. A blob names its key, so Decrypt needs no key id (as
KMS's). Requests are checked as Alibaba Cloud's RPC APIs check them: the signature (HMAC-SHA1 over the canonical
query, with the access key secret), the access key id, a timestamp within 15 minutes and a nonce never seen before;
an unknown key id, a missing one, a changed blob or a different encryption context are errors, answered as those APIs
answer errors (JSON with RequestId, HostId, Code, Message; aliyun-python-sdk-core raises them as ServerException).
"""
import base64
import datetime
import hashlib
import hmac
import ipaddress
import json
import os
import select
import socket
import ssl
import threading
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseRequestHandler, ThreadingTCPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID


def make_certificates(directory, names):
    """A CA for the run and a server certificate for `names` (DNS names; IP literals allowed) signed by it. Returns
    (ca_path, cert_path, key_path), PEM files in `directory`."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "oss2-suite local CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number())
          .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    key = ec.generate_private_key(ec.SECP256R1())
    alt = []
    for name in names:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alt.append(x509.DNSName(name))
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    paths = [os.path.join(directory, n) for n in ("ca.pem", "server.pem", "server-key.pem")]
    with open(paths[0], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths[1], "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths[2], "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return paths


class KMSError(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def percent_encode(text):
    """The RPC signature's encoding: RFC 3986 unreserved characters kept, everything else %XX (UTF-8)."""
    return urllib.parse.quote(text, safe="-_.~")


def rpc_signature(method, params, secret):
    """(signature, string to sign) of an RPC request's parameters (query and form body, without Signature)."""
    canonical = "&".join("%s=%s" % (percent_encode(k), percent_encode(v)) for k, v in sorted(params.items()))
    string_to_sign = method + "&" + percent_encode("/") + "&" + percent_encode(canonical)
    digest = hmac.new((secret + "&").encode(), string_to_sign.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode(), string_to_sign


class KMSStandIn:
    """Alibaba Cloud KMS's GenerateDataKey, Encrypt and Decrypt (API version 2016-01-20) over HTTPS, for one access
    key pair and one customer master key."""

    BLOB_MAGIC = b"oss2-suite-kms\x01"

    def __init__(self, access_key_id, access_key_secret, region, cert_path, key_path):
        self.access_key_id = access_key_id
        self.access_key_secret = access_key_secret
        self.host_id = "kms.%s.aliyuncs.com" % region
        self.key_id = str(uuid.uuid4())
        self.key_version_id = str(uuid.uuid4())
        self._keys = {self.key_id: AESGCM(AESGCM.generate_key(bit_length=256))}
        self._nonces = set()
        self._lock = threading.Lock()
        self.calls = {}
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                self._serve()

            def do_GET(self):
                self._serve()

            def _serve(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                status, reply = stand_in.handle(self.command, self.path, self.headers.get("Content-Type", ""), body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json;charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(cert_path, key_path)
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.address = self.server.server_address
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def handle(self, method, path, content_type, body):
        request_id = str(uuid.uuid4()).upper()
        try:
            params = self._authenticate(method, path, content_type, body)
            action = params.get("Action", "")
            handler = {"GenerateDataKey": self._generate_data_key, "Encrypt": self._encrypt,
                       "Decrypt": self._decrypt}.get(action)
            if handler is None:
                raise KMSError(404, "InvalidAction.NotFound",
                               "Specified api is not found, please check your url and method.")
            if params.get("Version") != "2016-01-20":
                raise KMSError(400, "InvalidVersion", "Specified parameter Version is not valid.")
            reply = handler(params)
            with self._lock:
                self.calls[action] = self.calls.get(action, 0) + 1
            reply["RequestId"] = request_id
            return 200, reply
        except KMSError as e:
            return e.status, {"RequestId": request_id, "HostId": self.host_id, "Code": e.code, "Message": e.message}

    def _authenticate(self, method, path, content_type, body):
        query = urllib.parse.urlsplit(path).query
        params = dict(urllib.parse.parse_qsl(query, keep_blank_values=True))
        if body and "application/x-www-form-urlencoded" in content_type:
            params.update(urllib.parse.parse_qsl(body.decode(), keep_blank_values=True))
        signature = params.pop("Signature", None)
        for name in ("AccessKeyId", "SignatureMethod", "SignatureVersion", "SignatureNonce", "Timestamp", "Action"):
            if not params.get(name):
                raise KMSError(400, "Missing" + name, "%s is mandatory for this action." % name)
        if signature is None:
            raise KMSError(400, "MissingSignature", "Signature is mandatory for this action.")
        if params["AccessKeyId"] != self.access_key_id:
            raise KMSError(404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.")
        if params["SignatureMethod"] != "HMAC-SHA1" or params["SignatureVersion"] != "1.0":
            raise KMSError(400, "InvalidSignatureMethod", "Specified signature method or version is not supported.")
        try:
            stamp = datetime.datetime.strptime(params["Timestamp"], "%Y-%m-%dT%H:%M:%SZ").replace(
                tzinfo=datetime.timezone.utc)
        except ValueError:
            raise KMSError(400, "InvalidTimeStamp.Format", "Specified time stamp or date value is not well formatted.")
        if abs((datetime.datetime.now(datetime.timezone.utc) - stamp).total_seconds()) > 900:
            raise KMSError(400, "InvalidTimeStamp.Expired", "Specified time stamp or date value is expired.")
        expected, string_to_sign = rpc_signature(method, params, self.access_key_secret)
        if not hmac.compare_digest(expected, signature):
            # aliyun-python-sdk-core compares the string to sign after the colon with its own.
            raise KMSError(400, "SignatureDoesNotMatch",
                           "Specified signature is not matched with our calculation. server string to sign is:"
                           + string_to_sign)
        with self._lock:
            if params["SignatureNonce"] in self._nonces:
                raise KMSError(400, "SignatureNonceUsed", "Specified signature nonce was used already.")
            self._nonces.add(params["SignatureNonce"])
        return params

    @staticmethod
    def _context(params):
        text = params.get("EncryptionContext", "")
        if not text:
            return b""
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise KMSError(400, "InvalidParameter", "EncryptionContext must be a JSON object of strings.")
        return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()

    def _key(self, params):
        key_id = params.get("KeyId", "")
        if not key_id:
            raise KMSError(400, "MissingKeyId", "KeyId is mandatory for this action.")
        if key_id not in self._keys:
            raise KMSError(404, "Forbidden.KeyNotFound", "The specified Key is not found.")
        return key_id

    def _seal(self, key_id, plaintext, context):
        nonce = os.urandom(12)
        key_uuid = uuid.UUID(key_id).bytes
        sealed = self._keys[key_id].encrypt(nonce, plaintext, key_uuid + context)
        return base64.b64encode(self.BLOB_MAGIC + key_uuid + nonce + sealed).decode()

    def _reply(self, key_id, **fields):
        return dict(KeyId=key_id, KeyVersionId=self.key_version_id, **fields)

    def _generate_data_key(self, params):
        key_id = self._key(params)
        spec = params.get("KeySpec", "")
        count = params.get("NumberOfBytes", "")
        if count:
            if not count.isdigit() or not 1 <= int(count) <= 1024:
                raise KMSError(400, "InvalidParameter", "NumberOfBytes must be between 1 and 1024.")
            size = int(count)
        elif spec in ("", "AES_256"):
            size = 32
        elif spec == "AES_128":
            size = 16
        else:
            raise KMSError(400, "InvalidParameter", "KeySpec must be AES_256 or AES_128.")
        plaintext = base64.b64encode(os.urandom(size)).decode()
        blob = self._seal(key_id, plaintext.encode(), self._context(params))
        return self._reply(key_id, Plaintext=plaintext, CiphertextBlob=blob)

    def _encrypt(self, params):
        key_id = self._key(params)
        plaintext = params.get("Plaintext", "")
        if not plaintext:
            raise KMSError(400, "MissingPlaintext", "Plaintext is mandatory for this action.")
        if len(plaintext.encode()) > 6144:
            raise KMSError(400, "InvalidParameter", "Plaintext must be at most 6 KB.")
        return self._reply(key_id, CiphertextBlob=self._seal(key_id, plaintext.encode(), self._context(params)))

    def _decrypt(self, params):
        text = params.get("CiphertextBlob", "")
        if not text:
            raise KMSError(400, "MissingCiphertextBlob", "CiphertextBlob is mandatory for this action.")
        try:
            blob = base64.b64decode(text, validate=True)
        except ValueError:
            raise KMSError(400, "InvalidCiphertext", "The CiphertextBlob is not valid Base64.")
        head = len(self.BLOB_MAGIC)
        if len(blob) < head + 16 + 12 + 16 or not blob.startswith(self.BLOB_MAGIC):
            raise KMSError(400, "InvalidCiphertext", "The CiphertextBlob is not valid.")
        key_id = str(uuid.UUID(bytes=blob[head:head + 16]))
        if key_id not in self._keys:
            raise KMSError(404, "Forbidden.KeyNotFound", "The specified Key is not found.")
        nonce, sealed = blob[head + 16:head + 28], blob[head + 28:]
        try:
            plaintext = self._keys[key_id].decrypt(nonce, sealed, blob[head:head + 16] + self._context(params))
        except Exception:
            raise KMSError(400, "InvalidCiphertext",
                           "The CiphertextBlob was changed, or the EncryptionContext differs from the one it was "
                           "made with.")
        return self._reply(key_id, Plaintext=plaintext.decode())


class AliyunProxy:
    """An HTTP proxy for the Alibaba Cloud names the tests use: plain-HTTP requests for the OSS names go to the local
    OSS server, CONNECT to the KMS name on port 443 goes to the KMS stand-in; the rest is refused."""

    def __init__(self, oss_address, oss_domains, kms_address, kms_host):
        """`oss_domains`: the OSS names (e.g. `oss-cn-shanghai.aliyuncs.com`) relayed to `oss_address`, with or
        without a bucket label in front; `kms_host`: the KMS name (`kms.cn-hangzhou.aliyuncs.com`) tunnelled to
        `kms_address`."""
        self.oss_domains = [d.lower() for d in oss_domains]
        self.kms_host = kms_host.lower()
        self.refused = []
        self.relayed = {"oss": 0, "kms": 0}
        self._lock = threading.Lock()
        proxy = self

        class Handler(BaseRequestHandler):
            def handle(self):
                proxy._handle(self.request)

        self.server = ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.oss_address, self.kms_address = oss_address, kms_address
        self.address = self.server.server_address
        self.url = "http://%s:%d" % self.address
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def _handle(self, client):
        received = b""
        while b"\r\n\r\n" not in received:  # the request head
            data = client.recv(65536)
            if not data or len(received) > 65536:
                return
            received += data
        line = received.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split()
        if len(parts) != 3:
            return
        method, target = parts[0].upper(), parts[1]
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            if host.lower() == self.kms_host and port == "443":
                upstream = socket.create_connection(self.kms_address)
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                self._count("kms")
                # A client sends nothing after CONNECT's head before the reply.
                return self._relay(client, upstream, received.split(b"\r\n\r\n", 1)[1])
        else:
            url = urllib.parse.urlsplit(target)
            host = (url.hostname or "").lower()
            if url.scheme == "http" and any(host == d or host.endswith("." + d) for d in self.oss_domains):
                upstream = socket.create_connection(self.oss_address)
                self._count("oss")
                # The local server takes the absolute form (as HTTP/1.1 servers must) and its host.
                return self._relay(client, upstream, received)
        # Any other name is as unreachable as it is here without the proxy: the connection closes unanswered, which
        # the client reports as a network error (test_request_error expects one for a made-up name).
        with self._lock:
            self.refused.append("%s %s" % (method, target))

    def _count(self, name):
        with self._lock:
            self.relayed[name] += 1

    @staticmethod
    def _relay(client, upstream, first):
        """Copies bytes both ways until both sides are done; `first` goes upstream first."""
        try:
            if first:
                upstream.sendall(first)
            open_ends = {client: upstream, upstream: client}
            while open_ends:
                readable, _, _ = select.select(list(open_ends), [], [], 300)
                if not readable:
                    break
                for source in readable:
                    data = source.recv(65536)
                    target = open_ends[source]
                    if data:
                        target.sendall(data)
                    else:
                        del open_ends[source]
                        try:
                            target.shutdown(socket.SHUT_WR)
                        except OSError:
                            pass
        except OSError:
            pass
        finally:
            upstream.close()


def self_check(kms, access_key_id, access_key_secret, region):
    """Checks the KMS stand-in as oss2's KMS provider reaches it (through the proxy variables and the CA bundle, so
    the harness's environment must be in place): a data key comes back sealed and unseals to the same bytes, and a
    changed blob, another encryption context, a wrong secret and an unknown key are refused. Raises AssertionError
    otherwise. The calls it makes are not counted in `kms.calls`."""
    import oss2

    def refused(call, code):
        try:
            call()
        except oss2.exceptions.OssError as e:
            assert e.code == code, "expected %s, got %s: %s" % (code, e.code, e)
            return
        raise AssertionError("expected %s, got success" % code)

    provider = oss2.AliKMSProvider(access_key_id, access_key_secret, region, kms.key_id)
    plain, blob = provider.get_key()
    assert len(plain) == 32 and plain not in base64.b64decode(blob)
    assert provider.decrypt_encrypted_key(blob) == plain, "the data key did not unseal to the same bytes"
    second, _ = provider.get_key()
    assert second != plain, "two data keys are the same"
    raw = base64.b64decode(blob)
    tampered = base64.b64encode(raw[:-1] + bytes([raw[-1] ^ 1])).decode()
    refused(lambda: provider.decrypt_encrypted_key(tampered), "InvalidCiphertext")
    other_context = oss2.AliKMSProvider(access_key_id, access_key_secret, region, kms.key_id, passphrase="other")
    refused(lambda: other_context.decrypt_encrypted_key(blob), "InvalidCiphertext")
    refused(lambda: oss2.AliKMSProvider(access_key_id, access_key_secret + "x", region, kms.key_id).get_key(),
            "InvalidAccessKeySecret")
    refused(lambda: oss2.AliKMSProvider(access_key_id, access_key_secret, region, str(uuid.uuid4())).get_key(),
            "Forbidden.KeyNotFound")
    refused(lambda: oss2.AliKMSProvider(access_key_id, access_key_secret, region, "").get_key(), "MissingKeyId")
    with kms._lock:
        kms.calls.clear()
