#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSSigning

/// Object-level retention and legal hold (ObjectWorm). The bucket side is a configuration family
/// (``OSSBucketObjectWormConfiguration`` through ``OSSClient/putBucketConfiguration(_:bucketName:)``); the four
/// object calls take a version id and a header, so they are declared here.
extension OSSClient {
    /// PutObjectRetention (`PUT /key?retention`): sets the retention of the current version or `versionId`. A
    /// COMPLIANCE retention can only be extended; shortening or switching a GOVERNANCE one needs
    /// `bypassGovernanceRetention` (`x-oss-bypass-governance-retention: true`) and the permission.
    @discardableResult
    public func putObjectRetention(
        _ retention: OSSObjectRetention, bucketName: String, objectKey: String, versionId: String? = nil,
        bypassGovernanceRetention: Bool = false
    ) async throws -> OSSObjectWormResult {
        try await perform(
            OSSPutObjectRetentionRequest(
                bucketName: bucketName, objectKey: objectKey, versionId: versionId,
                bypass: bypassGovernanceRetention ? true : nil, retention: retention))
    }

    /// GetObjectRetention (`GET /key?retention`): the retention of the current version or `versionId`.
    public func getObjectRetention(bucketName: String, objectKey: String, versionId: String? = nil) async throws
        -> OSSGetObjectRetentionResult
    {
        try await perform(
            OSSCall(
                OSSAPI("GetObjectRetention", "GET", subresource: "retention"), bucket: bucketName, key: objectKey,
                versionId: versionId, as: OSSGetObjectRetentionResult.self))
    }

    /// PutObjectLegalHold (`PUT /key?legalHold`): puts a legal hold on (or takes it off) a version.
    @discardableResult
    public func putObjectLegalHold(
        _ status: OSSObjectLegalHold, bucketName: String, objectKey: String, versionId: String? = nil
    ) async throws -> OSSObjectWormResult {
        try await perform(
            OSSPutObjectLegalHoldRequest(bucketName: bucketName, objectKey: objectKey, versionId: versionId, status: status))
    }

    /// GetObjectLegalHold (`GET /key?legalHold`): whether a version is under legal hold.
    public func getObjectLegalHold(bucketName: String, objectKey: String, versionId: String? = nil) async throws
        -> OSSGetObjectLegalHoldResult
    {
        try await perform(
            OSSCall(
                OSSAPI("GetObjectLegalHold", "GET", subresource: "legalHold"), bucket: bucketName, key: objectKey,
                versionId: versionId, as: OSSGetObjectLegalHoldResult.self))
    }
}

/// The result of PutObjectRetention and PutObjectLegalHold: the version they changed.
public struct OSSObjectWormResult: Sendable {
    public var versionId: String?
    public var requestId: String
}

/// The result of GetObjectRetention.
public struct OSSGetObjectRetentionResult: Sendable {
    public var retention: OSSObjectRetention
    public var versionId: String?
    public var requestId: String
}

/// The result of GetObjectLegalHold.
public struct OSSGetObjectLegalHoldResult: Sendable {
    public var status: OSSObjectLegalHold
    public var versionId: String?
    public var requestId: String
}

struct OSSPutObjectRetentionRequest: OSSObjectOperation {
    typealias Result = OSSObjectWormResult
    var bucketName: String
    var objectKey: String
    var versionId: String?
    var bypass: Bool?
    var retention: OSSObjectRetention
    var api: OSSAPI { OSSAPI("PutObjectRetention", "PUT", subresource: "retention") }
    static var parameters: [OSSParameter<Self>] {
        [.query("versionId", \.versionId), .header("x-oss-bypass-governance-retention", \.bypass)]
    }
    var body: OSSRetentionDocument? { OSSRetentionDocument(retention) }
}

struct OSSPutObjectLegalHoldRequest: OSSObjectOperation {
    typealias Result = OSSObjectWormResult
    var bucketName: String
    var objectKey: String
    var versionId: String?
    var status: OSSObjectLegalHold
    var api: OSSAPI { OSSAPI("PutObjectLegalHold", "PUT", subresource: "legalHold") }
    static var parameters: [OSSParameter<Self>] { [.query("versionId", \.versionId)] }
    var body: OSSLegalHoldDocument? { OSSLegalHoldDocument(status: status.rawValue) }

    func validate() throws {
        guard status == .on || status == .off else {
            throw OSSClientError.invalidArgument("a legal hold is ON or OFF, not \(status.rawValue.debugDescription)")
        }
    }
}

extension OSSObjectWormResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(versionId: response.headers["x-oss-version-id"], requestId: response.requestId)
    }
}

extension OSSGetObjectRetentionResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let document = try await response.xml(OSSRetentionDocument.self)
        guard let date = OSSDateFormat.parseISO8601(document.retainUntilDate) else {
            throw OSSClientError(.exceptionCaught, "GetObjectRetention: RetainUntilDate \(document.retainUntilDate.debugDescription) is not ISO 8601")
        }
        return Self(
            retention: OSSObjectRetention(mode: document.mode, retainUntilDate: date),
            versionId: response.headers["x-oss-version-id"], requestId: response.requestId)
    }
}

extension OSSGetObjectLegalHoldResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let document = try await response.xml(OSSLegalHoldDocument.self)
        return Self(
            status: OSSObjectLegalHold(rawValue: document.status), versionId: response.headers["x-oss-version-id"],
            requestId: response.requestId)
    }
}

/// `<Retention><Mode>…</Mode><RetainUntilDate>…</RetainUntilDate></Retention>`.
struct OSSRetentionDocument: OSSXMLDocument, Codable {
    static let root = "Retention"
    var mode: OSSObjectRetention.Mode
    var retainUntilDate: String

    init(_ retention: OSSObjectRetention) {
        mode = retention.mode
        retainUntilDate = OSSDateFormat.iso8601Milliseconds(retention.retainUntilDate)
    }

    enum CodingKeys: String, CodingKey {
        case mode = "Mode"
        case retainUntilDate = "RetainUntilDate"
    }
}

/// `<LegalHold><Status>ON|OFF</Status></LegalHold>`.
struct OSSLegalHoldDocument: OSSXMLDocument, Codable {
    static let root = "LegalHold"
    var status: String
    enum CodingKeys: String, CodingKey { case status = "Status" }
}
