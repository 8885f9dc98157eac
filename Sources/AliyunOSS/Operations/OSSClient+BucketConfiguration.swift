#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

/// A bucket configuration family: one document OSS keeps under a bucket's sub-resource (`PUT /?cors` writes it,
/// `GET /?cors` reads it, `DELETE /?cors` removes it). A family is a `Codable` model whose `CodingKeys` are OSS's
/// element names plus its ``family`` line; the three calls below serve every family, so adding one is a model and
/// a line (docs/CONTRIBUTING.md, "Adding an operation").
public protocol OSSBucketConfiguration: Codable, Sendable {
    /// The family's API name, sub-resource and root element.
    static var family: OSSBucketConfigurationFamily { get }
    /// Checks the configuration before it is sent (``OSSClientError/Code/invalidArgument``); OSS checks the rest.
    func validate() throws
}

/// A family OSS lets a caller delete (DeleteBucketCors, DeleteBucketLifecycle, ...). Referer, request payment and
/// transfer acceleration have no delete: a `put` of the default switches them off.
public protocol OSSDeletableBucketConfiguration: OSSBucketConfiguration {}

extension OSSBucketConfiguration {
    public func validate() throws {}
}

extension OSSBucketConfiguration {
    /// The configuration as the XML document OSS exchanges (`<CORSConfiguration>…</CORSConfiguration>`), to keep
    /// in a file or show.
    public func xmlDocument() throws -> String {
        do {
            return try OSSXMLEncoder().encode(self, root: Self.family.root)
        } catch {
            throw OSSClientError.invalidArgument("\(Self.family.name): the configuration cannot be written as XML: \(error)")
        }
    }

    /// Reads a configuration from its XML document; a document that is not one is `.invalidArgument`, naming the
    /// element at fault.
    public init(xmlDocument bytes: some Collection<UInt8>) throws {
        do {
            self = try OSSXMLDecoder().decode(Self.self, from: bytes, root: Self.family.root)
        } catch {
            throw OSSClientError.invalidArgument("not a \(Self.family.root) document: \(error)")
        }
    }
}

/// What names a family on the wire.
public struct OSSBucketConfigurationFamily: Sendable, Hashable, CustomStringConvertible {
    /// The name inside OSS's API names: `Cors` in PutBucketCors, GetBucketCors, DeleteBucketCors.
    public let name: String
    /// The sub-resource, `cors` in `PUT /?cors`.
    public let subresource: String
    /// The document's root element, `CORSConfiguration`.
    public let root: String

    public init(name: String, subresource: String, root: String) {
        self.name = name
        self.subresource = subresource
        self.root = root
    }

    public var description: String { name }
}

/// PutBucketXxx: replaces the family's configuration of a bucket.
public struct OSSPutBucketConfigurationRequest<Configuration: OSSBucketConfiguration>: Sendable {
    public var bucketName: String
    public var configuration: Configuration

    public init(bucketName: String, configuration: Configuration) {
        self.bucketName = bucketName
        self.configuration = configuration
    }
}

/// GetBucketXxx and DeleteBucketXxx: a bucket and the family (the type parameter).
public struct OSSBucketConfigurationRequest<Configuration: OSSBucketConfiguration>: Sendable {
    public var bucketName: String

    public init(bucketName: String, _ family: Configuration.Type = Configuration.self) {
        self.bucketName = bucketName
    }
}

/// The result of GetBucketXxx.
public struct OSSGetBucketConfigurationResult<Configuration: OSSBucketConfiguration>: Sendable {
    public var configuration: Configuration
    public var requestId: String
}

extension OSSClient {
    /// PutBucketXxx (`PUT /?<sub-resource>`) for any family: `putBucketConfiguration(.init(bucketName: "b",
    /// configuration: cors))`.
    @discardableResult
    public func putBucketConfiguration<Configuration>(
        _ request: OSSPutBucketConfigurationRequest<Configuration>
    ) async throws -> OSSEmptyResult {
        try await perform(request)
    }

    /// GetBucketXxx (`GET /?<sub-resource>`) for any family. A family never set is OSS's error for it
    /// (`NoSuchCORSConfiguration`, `NoSuchLifecycle`, ...), except those OSS answers with a default (referer,
    /// tags, logging, request payment).
    public func getBucketConfiguration<Configuration>(
        _ request: OSSBucketConfigurationRequest<Configuration>
    ) async throws -> OSSGetBucketConfigurationResult<Configuration> {
        try await perform(request.call("Get", "GET", as: OSSGetBucketConfigurationResult<Configuration>.self))
    }

    /// DeleteBucketXxx (`DELETE /?<sub-resource>`) for any family that has one.
    @discardableResult
    public func deleteBucketConfiguration<Configuration: OSSDeletableBucketConfiguration>(
        _ request: OSSBucketConfigurationRequest<Configuration>
    ) async throws -> OSSEmptyResult {
        try await perform(request.call("Delete", "DELETE", as: OSSEmptyResult.self))
    }
}

extension OSSClient {
    /// PutBucketXxx for the configuration's family: `putBucketConfiguration(cors, bucketName: "b")` is PutBucketCors.
    @discardableResult
    public func putBucketConfiguration<Configuration: OSSBucketConfiguration>(
        _ configuration: Configuration, bucketName: String
    ) async throws -> OSSEmptyResult {
        try await putBucketConfiguration(OSSPutBucketConfigurationRequest(bucketName: bucketName, configuration: configuration))
    }

    /// GetBucketXxx for a family: `getBucketConfiguration(OSSCORSConfiguration.self, bucketName: "b")` is
    /// GetBucketCors.
    public func getBucketConfiguration<Configuration: OSSBucketConfiguration>(
        _ family: Configuration.Type, bucketName: String
    ) async throws -> OSSGetBucketConfigurationResult<Configuration> {
        try await getBucketConfiguration(OSSBucketConfigurationRequest(bucketName: bucketName, family))
    }

    /// DeleteBucketXxx for a family: `deleteBucketConfiguration(OSSCORSConfiguration.self, bucketName: "b")` is
    /// DeleteBucketCors.
    @discardableResult
    public func deleteBucketConfiguration<Configuration: OSSDeletableBucketConfiguration>(
        _ family: Configuration.Type, bucketName: String
    ) async throws -> OSSEmptyResult {
        try await deleteBucketConfiguration(OSSBucketConfigurationRequest(bucketName: bucketName, family))
    }
}

extension OSSPutBucketConfigurationRequest: OSSBucketOperation {
    typealias Result = OSSEmptyResult
    var api: OSSAPI { OSSAPI("PutBucket" + Configuration.family.name, "PUT", subresource: Configuration.family.subresource) }
    var body: OSSBucketConfigurationDocument<Configuration>? { OSSBucketConfigurationDocument(configuration: configuration) }
    func validate() throws { try configuration.validate() }
}

extension OSSBucketConfigurationRequest {
    func call<Result: OSSDeclaredResult>(_ verb: String, _ method: String, as result: Result.Type) -> OSSCall<Result> {
        let family = Configuration.family
        return OSSCall(OSSAPI(verb + "Bucket" + family.name, method, subresource: family.subresource), bucket: bucketName)
    }
}

extension OSSGetBucketConfigurationResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(
            configuration: try await response.xml(Configuration.self, root: Configuration.family.root),
            requestId: response.requestId)
    }
}

/// A configuration written under its family's root element.
struct OSSBucketConfigurationDocument<Configuration: OSSBucketConfiguration>: OSSXMLDocument, Encodable {
    static var root: String { Configuration.family.root }
    var configuration: Configuration

    func encode(to encoder: any Encoder) throws { try configuration.encode(to: encoder) }
}

/// DeleteBucketTags with keys: the one family call with more than the generic ones.
extension OSSClient {
    /// DeleteBucketTags (`DELETE /?tagging`): removes every tag, or only those with the given keys
    /// (`?tagging=k1,k2`).
    @discardableResult
    public func deleteBucketTags(bucketName: String, keys: [String] = []) async throws -> OSSEmptyResult {
        guard !keys.isEmpty else {
            return try await deleteBucketConfiguration(OSSBucketConfigurationRequest(bucketName: bucketName, OSSBucketTagging.self))
        }
        guard keys.allSatisfy({ !$0.isEmpty && !$0.contains(",") }) else {
            throw OSSClientError.invalidArgument("tag keys to delete are non-empty and contain no comma")
        }
        var operation = try OSSCall(OSSAPI("DeleteBucketTags", "DELETE", subresource: "tagging"), bucket: bucketName, as: OSSEmptyResult.self)
            .operation()
        operation.query["tagging"] = keys.joined(separator: ",")
        return try await execute(operation) { try await OSSEmptyResult.decode($0) }
    }
}

/// The bucket policy: a JSON document, not XML, so its three calls are declared here rather than as a family.
extension OSSClient {
    /// OSS accepts policies of at most 16 KB.
    public static let maximumBucketPolicySize = 16 << 10

    /// PutBucketPolicy (`PUT /?policy`): `policy` is the JSON text (`{"Version":"1","Statement":[…]}`), sent as
    /// it is; OSS checks its grammar.
    @discardableResult
    public func putBucketPolicy(_ policy: String, bucketName: String) async throws -> OSSEmptyResult {
        let bytes = Array(policy.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumBucketPolicySize else {
            throw OSSClientError.invalidArgument("a bucket policy is 1 byte to 16 KB of JSON, not \(bytes.count) bytes")
        }
        var operation = try OSSCall(OSSAPI("PutBucketPolicy", "PUT", subresource: "policy"), bucket: bucketName, as: OSSEmptyResult.self)
            .operation()
        operation.body = .bytes(Data(bytes))
        operation.setHeader("content-type", "application/json")
        operation.setHeader("content-md5", OSSFileDigest.contentMD5(bytes))
        return try await execute(operation) { try await OSSEmptyResult.decode($0) }
    }

    /// GetBucketPolicy (`GET /?policy`): the JSON text as OSS stored it; `NoSuchBucketPolicy` when none is set.
    public func getBucketPolicy(bucketName: String) async throws -> OSSGetBucketPolicyResult {
        try await perform(OSSCall(OSSAPI("GetBucketPolicy", "GET", subresource: "policy"), bucket: bucketName, as: OSSGetBucketPolicyResult.self))
    }

    /// DeleteBucketPolicy (`DELETE /?policy`).
    @discardableResult
    public func deleteBucketPolicy(bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSCall(OSSAPI("DeleteBucketPolicy", "DELETE", subresource: "policy"), bucket: bucketName, as: OSSEmptyResult.self))
    }

    /// GetBucketPolicyStatus (`GET /?policyStatus`): whether the bucket's policy grants access to everyone (an
    /// Allow to principal `*` not narrowed to source addresses or VPCs); `false` with no policy.
    public func getBucketPolicyStatus(bucketName: String) async throws -> OSSGetBucketPolicyStatusResult {
        try await perform(OSSCall(
            OSSAPI("GetBucketPolicyStatus", "GET", subresource: "policyStatus"), bucket: bucketName, as: OSSGetBucketPolicyStatusResult.self))
    }
}

/// The result of GetBucketPolicyStatus.
public struct OSSGetBucketPolicyStatusResult: Sendable {
    /// `<PolicyStatus><IsPublic>`.
    public var isPublic: Bool
    public var requestId: String
}

extension OSSGetBucketPolicyStatusResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var isPublic: Bool
        enum CodingKeys: String, CodingKey { case isPublic = "IsPublic" }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(isPublic: try await response.xml(Document.self, root: "PolicyStatus").isPublic, requestId: response.requestId)
    }
}

/// The result of GetBucketPolicy.
public struct OSSGetBucketPolicyResult: Sendable {
    /// The policy's JSON text.
    public var policy: String
    public var requestId: String
}

extension OSSGetBucketPolicyResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let bytes = try await response.body.collectBytes(upTo: 4 * OSSClient.maximumBucketPolicySize)
        return Self(policy: String(decoding: bytes, as: UTF8.self), requestId: response.requestId)
    }
}
