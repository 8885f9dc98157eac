#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Custom domains (CNAME): a bucket answers requests addressed to a domain bound to it. OSS binds a domain only
/// after its ownership is shown with a token (CreateCnameToken, then a DNS TXT record), so the five calls are
/// POST actions and listings rather than a configuration family. A client whose endpoint is a bound domain uses
/// ``OSSAddressingStyle/cname``.
extension OSSClient {
    /// CreateCnameToken (`POST /?cname&comp=token`): the token that proves ownership of `domain`, valid 72 hours;
    /// asking again while it is valid returns the same token.
    public func createCnameToken(domain: String, bucketName: String) async throws -> OSSCnameTokenResult {
        try await perform(OSSCnameRequest(
            api: OSSAPI("CreateCnameToken", "POST", subresource: "cname"), bucketName: bucketName, comp: "token",
            cname: OSSCnameDocument(domain: domain), as: OSSCnameTokenResult.self))
    }

    /// GetCnameToken (`GET /?comp=token&cname=<domain>`): the token created for `domain`; `CnameTokenNotFound` when
    /// there is none or it expired.
    public func getCnameToken(domain: String, bucketName: String) async throws -> OSSCnameTokenResult {
        var request = OSSCnameRequest(api: OSSAPI("GetCnameToken", "GET"), bucketName: bucketName, comp: "token", as: OSSCnameTokenResult.self)
        request.domain = domain
        return try await perform(request)
    }

    /// PutCname (`POST /?cname&comp=add`): binds `domain` to the bucket, with an optional certificate for HTTPS.
    /// A domain without a valid token is `NeedVerifyDomainOwnership`; one bound to another bucket
    /// `CnameAlreadyExists`.
    @discardableResult
    public func putCname(
        domain: String, certificate: OSSCnameCertificateConfiguration? = nil, bucketName: String
    ) async throws -> OSSEmptyResult {
        try await perform(OSSCnameRequest(
            api: OSSAPI("PutCname", "POST", subresource: "cname"), bucketName: bucketName, comp: "add",
            cname: OSSCnameDocument(domain: domain, certificateConfiguration: certificate), as: OSSEmptyResult.self))
    }

    /// ListCname (`GET /?cname`): the domains bound to the bucket, with their certificates (never a private key).
    public func listCname(bucketName: String) async throws -> OSSListCnameResult {
        try await perform(OSSCall(OSSAPI("ListCname", "GET", subresource: "cname"), bucket: bucketName, as: OSSListCnameResult.self))
    }

    /// DeleteCname (`POST /?cname&comp=delete`): unbinds `domain`; `NoSuchCname` when it is not bound here.
    @discardableResult
    public func deleteCname(domain: String, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSCnameRequest(
            api: OSSAPI("DeleteCname", "POST", subresource: "cname"), bucketName: bucketName, comp: "delete",
            cname: OSSCnameDocument(domain: domain), as: OSSEmptyResult.self))
    }
}

/// `<CertificateConfiguration>` of PutCname: a certificate from Certificate Management Service (`certId`) or
/// uploaded (`certificate` and `privateKey`, PEM), replacing `previousCertId`; or `deleteCertificate` to drop it.
public struct OSSCnameCertificateConfiguration: Codable, Sendable, Hashable {
    public var certId: String?
    public var certificate: String?
    public var privateKey: String?
    public var previousCertId: String?
    /// Replaces a certificate even when `previousCertId` does not name the current one.
    public var force: Bool?
    public var deleteCertificate: Bool?

    public init(
        certId: String? = nil, certificate: String? = nil, privateKey: String? = nil, previousCertId: String? = nil,
        force: Bool? = nil, deleteCertificate: Bool? = nil
    ) {
        self.certId = certId
        self.certificate = certificate
        self.privateKey = privateKey
        self.previousCertId = previousCertId
        self.force = force
        self.deleteCertificate = deleteCertificate
    }

    enum CodingKeys: String, CodingKey {
        case certId = "CertId", certificate = "Certificate", privateKey = "PrivateKey", previousCertId = "PreviousCertId"
        case force = "Force", deleteCertificate = "DeleteCertificate"
    }
}

/// The result of CreateCnameToken and GetCnameToken: `<CnameToken>`.
public struct OSSCnameTokenResult: Sendable {
    public var bucket: String
    /// The domain.
    public var cname: String
    /// The value of the `_dnsauth.<domain>` TXT record that proves ownership.
    public var token: String
    /// When the token expires (RFC 1123, as OSS writes it).
    public var expireTime: String
    public var requestId: String

    /// ``expireTime`` as a date, if it parses.
    public var expirationDate: Date? { OSSDateFormat.parseRFC1123(expireTime) }
}

/// The result of ListCname.
public struct OSSListCnameResult: Sendable {
    public var bucket: String
    public var owner: String
    public var cnames: [OSSCnameInfo]
    public var requestId: String
}

/// One bound domain in ListCname.
public struct OSSCnameInfo: Codable, Sendable, Hashable {
    public var domain: String
    public var lastModified: String?
    /// `Enabled`.
    public var status: String?
    public var isWildCard: Bool?
    public var certificate: Certificate?

    /// The certificate bound with the domain (its private key is never returned).
    public struct Certificate: Codable, Sendable, Hashable {
        /// `CAS` (from Certificate Management Service) or `Upload`.
        public var type: String?
        public var certId: String?
        /// `Enabled` or `Disabled`.
        public var status: String?
        public var creationDate: String?
        /// The SHA-1 fingerprint of the certificate.
        public var fingerprint: String?
        public var validStartDate: String?
        public var validEndDate: String?

        enum CodingKeys: String, CodingKey {
            case type = "Type", certId = "CertId", status = "Status", creationDate = "CreationDate"
            case fingerprint = "Fingerprint", validStartDate = "ValidStartDate", validEndDate = "ValidEndDate"
        }
    }

    enum CodingKeys: String, CodingKey {
        case domain = "Domain", lastModified = "LastModified", status = "Status", isWildCard = "IsWildCard"
        case certificate = "Certificate"
    }
}

/// `<BucketCnameConfiguration><Cname>…</Cname></BucketCnameConfiguration>`.
struct OSSCnameDocument: OSSXMLDocument, Encodable {
    static let root = "BucketCnameConfiguration"
    var cname: Cname

    init(domain: String, certificateConfiguration: OSSCnameCertificateConfiguration? = nil) {
        cname = Cname(domain: domain, certificateConfiguration: certificateConfiguration)
    }

    struct Cname: Encodable {
        var domain: String
        var certificateConfiguration: OSSCnameCertificateConfiguration?
        enum CodingKeys: String, CodingKey { case domain = "Domain", certificateConfiguration = "CertificateConfiguration" }
    }

    enum CodingKeys: String, CodingKey { case cname = "Cname" }
}

/// The CNAME calls: `comp` (`token`, `add`, `delete`), a body naming the domain, or the domain in the query
/// (GetCnameToken).
struct OSSCnameRequest<Result: OSSDeclaredResult>: OSSBucketOperation {
    var api: OSSAPI
    var bucketName: String
    var comp: String
    var cname: OSSCnameDocument?
    var domain: String?

    init(api: OSSAPI, bucketName: String, comp: String, cname: OSSCnameDocument? = nil, as result: Result.Type) {
        self.api = api
        self.bucketName = bucketName
        self.comp = comp
        self.cname = cname
    }

    static var parameters: [OSSParameter<Self>] { [.query("comp", \.comp), .query("cname", \.domain)] }
    var body: OSSCnameDocument? { cname }

    func validate() throws {
        let name = cname?.cname.domain ?? domain ?? ""
        guard !name.isEmpty, name.utf8.count <= 253, !name.contains("/"), !name.contains(" ") else {
            throw OSSClientError.invalidArgument("\(api.name): a domain is 1 to 253 characters without '/' or spaces, not \(name.debugDescription)")
        }
    }
}

extension OSSCnameTokenResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var bucket: String
        var cname: String
        var token: String
        var expireTime: String
        enum CodingKeys: String, CodingKey { case bucket = "Bucket", cname = "Cname", token = "Token", expireTime = "ExpireTime" }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let d = try await response.xml(Document.self, root: "CnameToken")
        return Self(bucket: d.bucket, cname: d.cname, token: d.token, expireTime: d.expireTime, requestId: response.requestId)
    }
}

extension OSSListCnameResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var bucket: String
        var owner: String
        var cnames: [OSSCnameInfo]
        enum CodingKeys: String, CodingKey { case bucket = "Bucket", owner = "Owner", cnames = "Cname" }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let d = try await response.xml(Document.self, root: "ListCnameResult")
        return Self(bucket: d.bucket, owner: d.owner, cnames: d.cnames, requestId: response.requestId)
    }
}
