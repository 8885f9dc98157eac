import NIOCore
import NIOHTTP1
import OSSXML

/// Bucket configuration families (CORS, lifecycle, referer, tags, encryption, logging, website, request payment,
/// policy, transfer acceleration): one table says, per family, its sub-resource, its operations, what a GET of an
/// unset family answers and how a document is checked; one handler stores, reads and deletes any of them.
///
/// Each family's document is read with the server's own model (BucketConfigurationDocuments+*.swift), written
/// from OSS's documentation and not shared with the SDK, so the official clients judge both sides.
struct BucketConfigurationFamily: Sendable {
    /// What GET answers when the bucket has no document.
    enum Unset: Sendable {
        /// 404 with OSS's code for this family.
        case error(code: String, message: String)
        /// The document OSS reports for a bucket never configured.
        case document(String)
    }

    let subresource: String
    let put: LocalOSSOperation
    let get: LocalOSSOperation
    let delete: LocalOSSOperation?
    let unset: Unset
    let contentType: String
    /// Parses and checks a PUT body (a 400 with OSS's code when it is wrong), returning the document to store.
    let accept: @Sendable (_ body: [UInt8], _ check: ConfigurationCheck) async throws -> [UInt8]

    /// A family whose document is XML read with `Document`, stored as the model writes it back.
    init<Document: ConfigurationDocument>(
        _ document: Document.Type, _ subresource: String, put: LocalOSSOperation, get: LocalOSSOperation,
        delete: LocalOSSOperation?, unset: Unset
    ) {
        self.subresource = subresource
        self.put = put
        self.get = get
        self.delete = delete
        self.unset = unset
        self.contentType = "application/xml"
        self.accept = { body, check in
            let model = try Document.parse(body)
            try await model.check(check)
            return Array(try OSSXMLEncoder().encode(model, root: Document.root).utf8)
        }
    }

    /// A family whose document is not XML (the JSON policy).
    init(
        _ subresource: String, put: LocalOSSOperation, get: LocalOSSOperation, delete: LocalOSSOperation?,
        unset: Unset, contentType: String, accept: @escaping @Sendable ([UInt8], ConfigurationCheck) async throws -> [UInt8]
    ) {
        self.subresource = subresource
        self.put = put
        self.get = get
        self.delete = delete
        self.unset = unset
        self.contentType = contentType
        self.accept = accept
    }

    static let cors = Self(
        CORSDocument.self, "cors", put: .putBucketCors, get: .getBucketCors, delete: .deleteBucketCors,
        unset: .error(code: "NoSuchCORSConfiguration", message: "The CORS configuration does not exist."))
    static let lifecycle = Self(
        LifecycleDocument.self, "lifecycle", put: .putBucketLifecycle, get: .getBucketLifecycle,
        delete: .deleteBucketLifecycle,
        unset: .error(code: "NoSuchLifecycle", message: "No Row found in Lifecycle Table."))
    static let referer = Self(
        RefererDocument.self, "referer", put: .putBucketReferer, get: .getBucketReferer, delete: nil,
        unset: .document(RefererDocument.unsetDocument))
    static let tags = Self(
        BucketTagsDocument.self, "tagging", put: .putBucketTags, get: .getBucketTags, delete: .deleteBucketTags,
        unset: .document(BucketTagsDocument.unsetDocument))
    static let encryption = Self(
        EncryptionDocument.self, "encryption", put: .putBucketEncryption, get: .getBucketEncryption,
        delete: .deleteBucketEncryption,
        unset: .error(code: "NoSuchServerSideEncryptionRule", message: "The server side encryption configuration was not found."))
    static let logging = Self(
        LoggingDocument.self, "logging", put: .putBucketLogging, get: .getBucketLogging, delete: .deleteBucketLogging,
        unset: .document(LoggingDocument.unsetDocument))
    static let website = Self(
        WebsiteDocument.self, "website", put: .putBucketWebsite, get: .getBucketWebsite, delete: .deleteBucketWebsite,
        unset: .error(code: "NoSuchWebsiteConfiguration", message: "The specified bucket does not have a website configuration."))
    static let requestPayment = Self(
        RequestPaymentDocument.self, "requestPayment", put: .putBucketRequestPayment, get: .getBucketRequestPayment,
        delete: nil, unset: .document(RequestPaymentDocument.unsetDocument))
    static let transferAcceleration = Self(
        TransferAccelerationDocument.self, "transferAcceleration", put: .putBucketTransferAcceleration,
        get: .getBucketTransferAcceleration, delete: nil,
        unset: .error(code: "NoSuchTransferAccelerationConfiguration", message: "The bucket transfer acceleration configuration does not exist."))
    static let policy = Self(
        "policy", put: .putBucketPolicy, get: .getBucketPolicy, delete: .deleteBucketPolicy,
        unset: .error(code: "NoSuchBucketPolicy", message: "The bucket policy does not exist."),
        contentType: "application/json", accept: { body, check in try await BucketPolicyDocument.accept(body, check) })
    static let publicAccessBlock = Self(
        PublicAccessBlockDocument.self, "publicAccessBlock", put: .putBucketPublicAccessBlock,
        get: .getBucketPublicAccessBlock, delete: .deleteBucketPublicAccessBlock,
        unset: .document(PublicAccessBlockDocument.unsetDocument))

    static let overwrite = Self(
        OverwriteDocument.self, "overwriteConfig", put: .putBucketOverwriteConfig, get: .getBucketOverwriteConfig,
        delete: .deleteBucketOverwriteConfig,
        unset: .error(code: "NoSuchOverwriteConfiguration", message: "The bucket has no overwrite configuration."))

    static let objectWorm = Self(
        ObjectWormDocument.self, "objectWorm", put: .putBucketObjectWormConfiguration,
        get: .getBucketObjectWormConfiguration, delete: nil,
        unset: .error(code: "NoSuchObjectWormConfiguration", message: "The bucket has no ObjectWorm configuration."))

    static let all: [Self] = [
        cors, lifecycle, referer, tags, encryption, logging, website, requestPayment, transferAcceleration, policy,
        publicAccessBlock,
        overwrite,
        httpsConfig, accessMonitor, archiveDirectRead, resourceGroup,
        objectWorm,
    ]

    /// The family a bucket-level request's query names, if any.
    static func named(in query: [String: String]) -> Self? {
        all.first { query[$0.subresource] != nil }
    }

    /// The family an operation belongs to.
    static func serving(_ operation: LocalOSSOperation) -> Self? {
        all.first { $0.put == operation || $0.get == operation || $0.delete == operation }
    }

    /// The operation a bucket-level request asks of this family, or `nil` for a method it does not have.
    func operation(for method: String) -> LocalOSSOperation? {
        switch method {
        case "PUT": return put
        case "GET": return get
        case "DELETE": return delete
        default: return nil
        }
    }
}

/// What a document's checks may consult beyond the document (another bucket, for logging's target).
struct ConfigurationCheck: Sendable {
    let store: ObjectStore
    let bucket: String
}

/// A family's XML document as the server reads it.
protocol ConfigurationDocument: Codable, Sendable {
    static var root: String { get }
    /// OSS's checks beyond the XML schema (value ranges, combinations).
    func check(_ context: ConfigurationCheck) async throws
}

extension ConfigurationDocument {
    /// Parses `body`; a document that is not well-formed or lacks a required element is `MalformedXML`.
    static func parse(_ body: [UInt8]) throws(LocalOSSError) -> Self {
        do { return try OSSXMLDecoder().decode(Self.self, from: body, root: root) } catch {
            throw .malformedXML("\(error)")
        }
    }
}

extension RequestHandler {
    /// PutBucketXxx, GetBucketXxx and DeleteBucketXxx for every family.
    func bucketConfiguration(
        _ operation: LocalOSSOperation, _ family: BucketConfigurationFamily, context: RequestContext,
        reader: RequestBodyReader
    ) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        switch operation {
        case family.put:
            let body = try await reader.collect(limit: 1 << 20)
            try verifyContentMD5(context, body: body)
            let document = try await family.accept(Array(body.readableBytesView), ConfigurationCheck(store: store, bucket: bucket))
            try await store.setConfiguration(bucket, family, document)
            return ServerResponse(status: .ok)
        case family.get:
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: family.contentType)
            if let document = try await store.configuration(bucket, family) {
                return ServerResponse(status: .ok, headers: headers, body: .buffer(ByteBuffer(bytes: document)))
            }
            switch family.unset {
            case .error(let code, let message):
                throw LocalOSSError(404, code, message, fields: [("BucketName", bucket)])
            case .document(let text):
                return ServerResponse(status: .ok, headers: headers, body: .buffer(ByteBuffer(string: text)))
            }
        default:
            if family.subresource == BucketConfigurationFamily.tags.subresource, let keys = context.query["tagging"],
                !keys.isEmpty, let stored = try await store.configuration(bucket, family)
            {
                // DeleteBucketTags with `?tagging=k1,k2` removes those keys only.
                let remaining = try BucketTagsDocument.removing(Set(keys.split(separator: ",").map(String.init)), from: stored)
                try await store.setConfiguration(bucket, family, remaining)
                return ServerResponse(status: .noContent)
            }
            try await store.removeConfiguration(bucket, family)
            return ServerResponse(status: .noContent)
        }
    }

    /// The document of `family` read with the server's model, or `nil` when the bucket has none (or no such
    /// bucket): what enforcement (CORS, ...) consults.
    func storedConfiguration<Document: ConfigurationDocument>(
        _ type: Document.Type, _ family: BucketConfigurationFamily, bucket: String
    ) async -> Document? {
        guard let bytes = try? await store.configuration(bucket, family) else { return nil }
        return try? Document.parse(bytes)
    }
}
