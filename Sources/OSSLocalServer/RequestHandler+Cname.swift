import Crypto
import Foundation
import NIOHTTP1
import OSSSigning
import OSSXML

/// Custom domains (CreateCnameToken, GetCnameToken, PutCname, ListCname, DeleteCname) as OSS documents them: a
/// domain is bound to one bucket only after its owner created a token (OSS then looks for it in a `_dnsauth` TXT
/// record, which a local server cannot; a valid token stands for it here), a token lives 72 hours and asking again
/// returns the same one, and an uploaded certificate is kept with its fingerprint but never its private key (which
/// is checked and dropped). A request whose `Host` is a bound domain is served as that bucket's (``cnameBucket``).
extension RequestHandler {
    static let cnameTokenLifetime: TimeInterval = 72 * 3600
    static let maximumCnamesPerBucket = 100

    func cname(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        switch operation {
        case .createCnameToken:
            let domain = try await cnameBody(context, reader: reader).cname.checkedDomain()
            let now = context.now
            let token = try await updateConfigurationEntries(bucket, "cnameToken", CnameToken.self) { tokens in
                tokens.removeAll { $0.entry.expires <= now.timeIntervalSince1970 }
                if let valid = tokens.first(where: { $0.name == domain }) { return valid.entry }
                let token = CnameToken(
                    token: Insecure.MD5.hash(data: Array(UUID().uuidString.utf8)).map { String(format: "%02x", $0) }.joined(),
                    expires: (now + Self.cnameTokenLifetime).timeIntervalSince1970.rounded(.down))
                tokens.append(ConfigurationEntry(name: domain, entry: token))
                return token
            }
            return .xml(try OSSXMLEncoder().encode(token.document(bucket: bucket, domain: domain), root: "CnameToken"))
        case .getCnameToken:
            let domain = try CnameRequest.Cname(domain: try requiredParameter("cname", context)).checkedDomain()
            let tokens = try await configurationEntries(bucket, "cnameToken", CnameToken.self)
            guard let token = tokens.first(where: { $0.name == domain && $0.entry.expires > context.now.timeIntervalSince1970 }) else {
                throw LocalOSSError(404, "CnameTokenNotFound", "Cname token not found.", fields: [("BucketName", bucket)])
            }
            return .xml(try OSSXMLEncoder().encode(token.entry.document(bucket: bucket, domain: domain), root: "CnameToken"))
        case .putCname:
            let request = try await cnameBody(context, reader: reader).cname
            let domain = try request.checkedDomain()
            if let owner = try await bucketBound(to: domain), owner != bucket {
                throw LocalOSSError(409, "CnameAlreadyExists", "The CNAME is bound to another bucket.", fields: [("Cname", domain)])
            }
            let certificate = try request.certificateConfiguration.map { try $0.checked(now: context.now) }
            let verified = try await configurationEntries(bucket, "cnameToken", CnameToken.self)
                .contains { $0.name == domain && $0.entry.expires > context.now.timeIntervalSince1970 }
            let now = OSSDateFormat.iso8601Milliseconds(context.now)
            try await updateConfigurationEntries(bucket, "cname", CnameRecord.self) { records in
                if let index = records.firstIndex(where: { $0.name == domain }) {
                    records[index].entry.lastModified = now
                    if let certificate { try records[index].entry.apply(certificate) }
                    return
                }
                guard verified else {
                    throw LocalOSSError(
                        409, "NeedVerifyDomainOwnership", "Please verify domain ownership by CreateCnameToken and try again.",
                        fields: [("Cname", domain)])
                }
                guard records.count < Self.maximumCnamesPerBucket else {
                    throw LocalOSSError(400, "TooManyCname", "A bucket has at most \(Self.maximumCnamesPerBucket) CNAMEs.")
                }
                var record = CnameRecord(domain: domain, lastModified: now)
                if let certificate { try record.apply(certificate) }
                records.append(ConfigurationEntry(name: domain, entry: record))
            }
            return ServerResponse(status: .ok)
        case .listCname:
            let records = try await configurationEntries(bucket, "cname", CnameRecord.self)
            let list = CnameList(bucket: bucket, owner: ownerId, cnames: records.map(\.entry))
            return .xml(try OSSXMLEncoder().encode(list, root: "ListCnameResult"))
        default:
            let domain = try await cnameBody(context, reader: reader).cname.checkedDomain()
            try await updateConfigurationEntries(bucket, "cname", CnameRecord.self) { records in
                guard records.contains(where: { $0.name == domain }) else {
                    throw LocalOSSError(404, "NoSuchCname", "The CNAME is not bound to this bucket.", fields: [("Cname", domain)])
                }
                records.removeAll { $0.name == domain }
            }
            return ServerResponse(status: .ok)
        }
    }

    private func cnameBody(_ context: RequestContext, reader: RequestBodyReader) async throws -> CnameRequest {
        try await configurationBody(CnameRequest.self, root: "BucketCnameConfiguration", context: context, reader: reader)
    }

    /// The bucket `domain` is bound to, if any.
    func bucketBound(to domain: String) async throws -> String? {
        for record in await store.listBuckets() {
            let records = (try? await configurationEntries(record.name, "cname", CnameRecord.self)) ?? []
            if records.contains(where: { $0.name == domain }) { return record.name }
        }
        return nil
    }

    /// The request readdressed to the bucket its `Host` is bound to as a custom domain: the whole path is the key.
    /// Hosts the server addresses itself (IP literals, `localhost`, its virtual-host domains) are not looked up.
    func cnameBucket(_ context: RequestContext) async -> RequestContext {
        guard var host = context.header("host")?.lowercased(), !host.hasPrefix("[") else { return context }
        if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        guard !host.isEmpty, host != "localhost", !host.hasSuffix(".localhost"), !Router.isIPv4(host),
            !configuration.virtualHostDomains.contains(where: { host == $0.lowercased() || host.hasSuffix("." + $0.lowercased()) }),
            let bucket = try? await bucketBound(to: host)
        else { return context }
        var readdressed = context
        readdressed.bucket = bucket
        var path = context.head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        if path.hasPrefix("/") { path = path.dropFirst() }
        let key = OSSPercentEncoding.decode(path, plusAsSpace: false) ?? ""
        readdressed.key = key.isEmpty ? nil : key
        return readdressed
    }
}

/// `<BucketCnameConfiguration>` as PutCname, DeleteCname and CreateCnameToken send it.
private struct CnameRequest: Decodable {
    var cname: Cname
    enum CodingKeys: String, CodingKey { case cname = "Cname" }

    struct Cname: Decodable {
        var domain: String
        var certificateConfiguration: CertificateConfiguration?
        enum CodingKeys: String, CodingKey { case domain = "Domain", certificateConfiguration = "CertificateConfiguration" }

        init(domain: String) { self.domain = domain }

        /// The domain lower-cased; not a host name is `InvalidArgument`.
        func checkedDomain() throws(LocalOSSError) -> String {
            let name = domain.lowercased()
            let labels = name.split(separator: ".", omittingEmptySubsequences: false)
            let valid = name.utf8.count <= 253 && labels.count >= 2 && labels.allSatisfy { label in
                !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                    && label.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "*" }
            }
            guard valid else { throw .invalidArgument("The domain \(domain.prefix(64)) is not valid.", name: "Domain", value: String(domain.prefix(64))) }
            return name
        }
    }

    struct CertificateConfiguration: Decodable {
        var certId: String?
        var certificate: String?
        var privateKey: String?
        var previousCertId: String?
        var force: Bool?
        var deleteCertificate: Bool?
        enum CodingKeys: String, CodingKey {
            case certId = "CertId", certificate = "Certificate", privateKey = "PrivateKey", previousCertId = "PreviousCertId"
            case force = "Force", deleteCertificate = "DeleteCertificate"
        }

        /// What the configuration asks for, checked: an uploaded certificate needs its private key (both PEM);
        /// the key goes no further than this check.
        func checked(now: Date) throws(LocalOSSError) -> CertificateChange {
            if deleteCertificate == true { return .delete }
            if let certificate, !certificate.isEmpty {
                guard let der = Self.pem(certificate, "CERTIFICATE") else {
                    throw .invalidArgument("The certificate is not a PEM certificate.", name: "Certificate")
                }
                guard let privateKey, Self.pem(privateKey, "PRIVATE KEY") != nil else {
                    throw .invalidArgument("An uploaded certificate needs its PEM private key.", name: "PrivateKey")
                }
                let fingerprint = Insecure.SHA1.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
                let id = certId ?? String(fingerprint.replacingOccurrences(of: ":", with: "").prefix(16).lowercased()) + "-local"
                return .set(CnameRecord.Certificate(
                    type: "Upload", certId: id, status: "Enabled", creationDate: OSSDateFormat.rfc1123(now), fingerprint: fingerprint),
                    previous: previousCertId, force: force ?? false)
            }
            if let certId, !certId.isEmpty {
                return .set(CnameRecord.Certificate(type: "CAS", certId: certId, status: "Enabled", creationDate: OSSDateFormat.rfc1123(now)),
                    previous: previousCertId, force: force ?? false)
            }
            throw .invalidArgument("A CertificateConfiguration names a CertId, uploads a Certificate, or deletes it.", name: "CertificateConfiguration")
        }

        /// The DER bytes of a PEM block whose label ends with `label` (`RSA PRIVATE KEY`, `PRIVATE KEY`).
        static func pem(_ text: String, _ label: String) -> [UInt8]? {
            let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") && $0.hasSuffix(label + "-----") }),
                let end = lines.lastIndex(where: { $0.hasPrefix("-----END ") && $0.hasSuffix(label + "-----") }), begin < end,
                let der = Data(base64Encoded: lines[(begin + 1)..<end].joined()), !der.isEmpty
            else { return nil }
            return Array(der)
        }
    }
}

private enum CertificateChange: Sendable {
    case set(CnameRecord.Certificate, previous: String?, force: Bool)
    case delete
}

/// A bound domain as stored and listed (`<Cname>` of ListCnameResult).
private struct CnameRecord: Codable, Sendable {
    var domain: String
    var lastModified: String
    var status = "Enabled"
    var isWildCard = false
    var certificate: Certificate?

    init(domain: String, lastModified: String) {
        self.domain = domain
        self.lastModified = lastModified
        self.isWildCard = domain.hasPrefix("*.")
    }

    struct Certificate: Codable, Sendable {
        var type: String
        var certId: String
        var status: String
        var creationDate: String
        var fingerprint: String?
        enum CodingKeys: String, CodingKey {
            case type = "Type", certId = "CertId", status = "Status", creationDate = "CreationDate", fingerprint = "Fingerprint"
        }
    }

    enum CodingKeys: String, CodingKey {
        case domain = "Domain", lastModified = "LastModified", status = "Status", isWildCard = "IsWildCard"
        case certificate = "Certificate"
    }

    /// Sets or drops the certificate; replacing one needs its id as `PreviousCertId` unless forced.
    mutating func apply(_ change: CertificateChange) throws(LocalOSSError) {
        switch change {
        case .delete:
            certificate = nil
        case .set(let new, let previous, let force):
            if let current = certificate, !force, previous != current.certId {
                throw LocalOSSError(409, "CertificateMismatch", "PreviousCertId does not name the bound certificate; set Force to replace it.")
            }
            certificate = new
        }
    }
}

private struct CnameToken: Codable, Sendable {
    var token: String
    /// Seconds since 1970.
    var expires: TimeInterval

    func document(bucket: String, domain: String) -> TokenDocument {
        TokenDocument(bucket: bucket, cname: domain, token: token, expireTime: OSSDateFormat.rfc1123(Date(timeIntervalSince1970: expires)))
    }

    struct TokenDocument: Encodable {
        var bucket: String
        var cname: String
        var token: String
        var expireTime: String
        enum CodingKeys: String, CodingKey { case bucket = "Bucket", cname = "Cname", token = "Token", expireTime = "ExpireTime" }
    }
}

private struct CnameList: Encodable {
    var bucket: String
    var owner: String
    var cnames: [CnameRecord]
    enum CodingKeys: String, CodingKey { case bucket = "Bucket", owner = "Owner", cnames = "Cname" }
}

extension Router {
    /// CNAME calls (`?cname`, `?comp=token&cname=`) and GetBucketPolicyStatus.
    static func cnameOperation(_ method: String, _ q: [String: String]) -> LocalOSSOperation? {
        if q["policyStatus"] != nil { return method == "GET" ? .getBucketPolicyStatus : nil }
        switch (method, q["comp"], q["cname"] != nil) {
        case ("GET", "token", true): return .getCnameToken
        case ("POST", "token", true): return .createCnameToken
        case ("POST", "add", true): return .putCname
        case ("POST", "delete", true): return .deleteCname
        case ("GET", nil, true): return .listCname
        default: return nil
        }
    }
}
