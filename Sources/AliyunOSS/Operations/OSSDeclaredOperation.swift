#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

/// An OSS API call stated as data: a request model that conforms says which API it is, where it goes, which of its
/// fields travel as headers or query parameters and which model is the XML body; its ``Result`` says how the answer
/// is read. ``OSSClient/perform(_:)`` runs any of them through the pipeline, so a new API is a model and a few
/// lines of declaration, not hand-written XML (docs/CONTRIBUTING.md, "Adding an operation").
protocol OSSDeclaredOperation: Sendable {
    associatedtype Result: OSSDeclaredResult
    /// The XML body model; ``OSSNoBody`` for calls without one.
    associatedtype Body: OSSXMLDocument & Encodable = OSSNoBody

    /// The API name, method and sub-resource.
    var api: OSSAPI { get }
    /// The bucket, or `nil` for service-level calls (ListBuckets).
    var bucket: String? { get }
    /// The object key, or `nil` for bucket-level calls.
    var key: String? { get }
    /// The fields sent as headers or query parameters (besides the sub-resource).
    static var parameters: [OSSParameter<Self>] { get }
    /// The body, written as `<root>…</root>` with ``OSSXMLDocument/root``; `nil` sends none.
    var body: Body? { get }
    /// Checks the request before anything is sent (``OSSClientError/Code/invalidArgument``).
    func validate() throws
}

/// A result read from a successful (2xx) response: its headers and, for most, an XML body.
protocol OSSDeclaredResult: Sendable {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self
}

/// What a declaration names: the API (for logs and errors), the method and the sub-resource (`?tagging`).
struct OSSAPI: Sendable {
    var name: String
    var method: String
    /// Written as the bare query name (`tagging` → `?tagging`).
    var subresource: String?

    init(_ name: String, _ method: String, subresource: String? = nil) {
        self.name = name
        self.method = method
        self.subresource = subresource
    }
}

/// A request field sent as a header or a query parameter; `nil` values are not sent.
struct OSSParameter<Request> {
    let apply: (Request, inout OSSOperation) -> Void

    static func header<Value: OSSParameterValue>(_ name: String, _ field: KeyPath<Request, Value>) -> Self {
        Self { request, operation in operation.setHeader(name, request[keyPath: field].parameterText) }
    }

    static func query<Value: OSSParameterValue>(_ name: String, _ field: KeyPath<Request, Value>) -> Self {
        Self { request, operation in operation.setQuery(name, request[keyPath: field].parameterText) }
    }
}

/// A value that can be a header or query parameter.
protocol OSSParameterValue {
    var parameterText: String? { get }
}

extension String: OSSParameterValue { var parameterText: String? { self } }
extension Int: OSSParameterValue { var parameterText: String? { String(self) } }
extension Int64: OSSParameterValue { var parameterText: String? { String(self) } }
extension Bool: OSSParameterValue { var parameterText: String? { self ? "true" : "false" } }
extension OSSACL: OSSParameterValue { var parameterText: String? { rawValue } }
extension Optional: OSSParameterValue where Wrapped: OSSParameterValue {
    var parameterText: String? { self?.parameterText }
}

/// A model that is a whole XML document: its root element's name.
protocol OSSXMLDocument {
    static var root: String { get }
}

/// The body of a call that sends none.
struct OSSNoBody: OSSXMLDocument, Encodable {
    static var root: String { "" }
}

extension OSSDeclaredOperation {
    var bucket: String? { nil }
    var key: String? { nil }
    static var parameters: [OSSParameter<Self>] { [] }
    func validate() throws {}
}

extension OSSDeclaredOperation where Body == OSSNoBody {
    var body: OSSNoBody? { nil }
}

/// A call declared where it is made, for a request model that serves several APIs (GetObjectTagging and
/// DeleteObjectTagging share one) or for calls with nothing but an address (and an object's version).
struct OSSCall<Result: OSSDeclaredResult>: OSSDeclaredOperation {
    var api: OSSAPI
    var bucket: String?
    var key: String?
    /// `?versionId=`: the version of `key` the call is about.
    var versionId: String?

    static var parameters: [OSSParameter<Self>] { [.query("versionId", \.versionId)] }

    init(
        _ api: OSSAPI, bucket: String?, key: String? = nil, versionId: String? = nil,
        as result: Result.Type = Result.self
    ) {
        self.api = api
        self.bucket = bucket
        self.key = key
        self.versionId = versionId
    }
}

/// A call on a bucket.
protocol OSSBucketOperation: OSSDeclaredOperation {
    var bucketName: String { get }
}

extension OSSBucketOperation {
    var bucket: String? { bucketName }
}

/// A call on an object.
protocol OSSObjectOperation: OSSBucketOperation {
    var objectKey: String { get }
}

extension OSSObjectOperation {
    var key: String? { objectKey }
}

extension OSSDeclaredOperation {
    /// The operation the pipeline runs: checked, addressed, with its parameters and body.
    func operation() throws -> OSSOperation {
        try validate()
        var operation = OSSOperation(name: api.name, method: api.method, bucket: bucket, key: key)
        if let subresource = api.subresource { operation.query[subresource] = "" }
        for parameter in Self.parameters { parameter.apply(self, &operation) }
        if let body {
            let bytes: [UInt8]
            do {
                bytes = Array(try OSSXMLEncoder().encode(body, root: Body.root).utf8)
            } catch {
                throw OSSClientError.invalidArgument("\(api.name): the request cannot be written as XML: \(error)")
            }
            operation.body = .bytes(Data(bytes))
            operation.setHeader("content-type", "application/xml")
            operation.setHeader("content-md5", OSSFileDigest.contentMD5(bytes))
        }
        return operation
    }
}

extension OSSClient {
    /// Runs a declared operation through the pipeline (addressing, retry, signing, error mapping) and reads its
    /// result.
    func perform<Operation: OSSDeclaredOperation>(_ request: Operation) async throws -> Operation.Result {
        try await execute(try request.operation()) { try await Operation.Result.decode($0) }
    }
}

extension OSSHTTPResponse {
    /// Collects the XML body and decodes it as `T`, checking the root element. A malformed document or one that
    /// lacks what `T` requires is an ``OSSClientError`` that names the element.
    func xml<T: OSSXMLDocument & Decodable>(_ type: T.Type) async throws -> T {
        try await xml(type, root: T.root)
    }

    /// Collects the XML body and decodes `<root>` as `T` (a model, or a scalar for a document that is one element).
    func xml<T: Decodable>(_ type: T.Type, root: String) async throws -> T {
        let bytes = try await body.collectBytes(upTo: OSSXMLParser.maximumDocumentSize)
        do {
            return try OSSXMLDecoder().decode(type, from: bytes, root: root)
        } catch {
            throw OSSClientError(.exceptionCaught, "unexpected \(root) response: \(error)", underlying: error)
        }
    }
}

extension OSSEmptyResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        try await response.body.drain()
        return Self(statusCode: response.status, requestId: response.requestId)
    }
}
