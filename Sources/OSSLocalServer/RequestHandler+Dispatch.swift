import NIOCore
import NIOHTTP1

extension RequestHandler {
    /// Runs the handler of an authenticated request.
    func dispatch(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws
        -> ServerResponse
    {
        _ = try TrafficShaper.limit(of: context)  // a malformed x-oss-traffic-limit is refused on any operation
        try refuseImageProcessing(operation, context: context)
        if let site = try await websiteResponse(operation, context: context) { return site }
        switch operation {
        case .listBuckets: return try await listBuckets(context)
        case .describeRegions: return try describeRegions(context)
        case .putBucket: return try await putBucket(context, reader: reader)
        case .deleteBucket: return try await deleteBucket(context)
        case .getBucketInfo: return try await getBucketInfo(context)
        case .getBucketLocation: return try await getBucketLocation(context)
        case .listObjects: return try await listObjects(context, v2: false)
        case .listObjectsV2: return try await listObjects(context, v2: true)
        case .putObject: return try await putObject(context, reader: reader)
        case .postObject: return try await postObject(context, reader: reader)
        case .getObject, .headObject: return try await getObject(context)
        case .getObjectMeta: return try await getObjectMeta(context)
        case .deleteObject: return try await deleteObject(context)
        case .deleteMultipleObjects: return try await deleteMultipleObjects(context, reader: reader)
        case .initiateMultipartUpload: return try await initiateMultipartUpload(context)
        case .uploadPart: return try await uploadPart(context, reader: reader)
        case .listParts: return try await listParts(context)
        case .completeMultipartUpload: return try await completeMultipartUpload(context, reader: reader)
        case .abortMultipartUpload: return try await abortMultipartUpload(context)
        case .listMultipartUploads: return try await listMultipartUploads(context)
        case .copyObject: return try await copyObject(context)
        case .uploadPartCopy: return try await uploadPartCopy(context)
        case .appendObject: return try await appendObject(context, reader: reader)
        case .putObjectACL: return try await putObjectACL(context)
        case .getObjectACL: return try await getObjectACL(context)
        case .putBucketACL: return try await putBucketACL(context, reader: reader)
        case .getBucketACL: return try await getBucketACL(context)
        case .putObjectTagging: return try await putObjectTagging(context, reader: reader)
        case .putObjectRetention, .getObjectRetention, .putObjectLegalHold, .getObjectLegalHold:
            return try await objectWorm(operation, context: context, reader: reader)
        case .getObjectTagging: return try await getObjectTagging(context)
        case .deleteObjectTagging: return try await deleteObjectTagging(context)
        case .putSymlink: return try await putSymlink(context)
        case .getSymlink: return try await getSymlink(context)
        case .restoreObject: return try await restoreObject(context, reader: reader)
        case .cleanRestoredObject: return try await cleanRestoredObject(context)
        case .sealAppendObject: return try await sealAppendObject(context)
        case .processObject: return try await processObject(context, reader: reader)
        case .listLiveChannel: return try await listLiveChannel(context)
        case .putLiveChannel: return try await putLiveChannel(context, reader: reader)
        case .getLiveChannelInfo: return try await getLiveChannel(context)
        case .deleteLiveChannel: return try await deleteLiveChannel(context)
        case .putBucketVersioning: return try await putBucketVersioning(context, reader: reader)
        case .getBucketVersioning: return try await getBucketVersioning(context)
        case .listObjectVersions: return try await listObjectVersions(context)
        case .optionObject: return try await optionObject(context)
        case .getBucketStat: return try await getBucketStat(context)
        case .putPublicAccessBlock, .getPublicAccessBlock, .deletePublicAccessBlock:
            return try await accountPublicAccessBlock(operation, context: context, reader: reader)
        case .initiateBucketWorm, .abortBucketWorm, .completeBucketWorm, .extendBucketWorm, .getBucketWorm:
            return try await bucketWorm(operation, context: context, reader: reader)
        case .putBucketInventory, .getBucketInventory, .listBucketInventory, .deleteBucketInventory:
            return try await bucketInventory(operation, context: context, reader: reader)
        case .putStyle, .getStyle, .listStyle, .deleteStyle: return try await bucketStyle(operation, context: context, reader: reader)
        case .getBucketPolicyStatus: return try await getBucketPolicyStatus(context)
        case .createCnameToken, .getCnameToken, .putCname, .listCname, .deleteCname:
            return try await cname(operation, context: context, reader: reader)
        case .createBucketDataRedundancyTransition, .getBucketDataRedundancyTransition, .listBucketDataRedundancyTransition,
            .listUserDataRedundancyTransition, .deleteBucketDataRedundancyTransition:
            return try await redundancyTransition(operation, context: context)
        case .createAccessPoint, .getAccessPoint, .listAccessPoints, .deleteAccessPoint, .putAccessPointPolicy,
            .getAccessPointPolicy, .deleteAccessPointPolicy:
            return try await accessPoint(operation, context: context, reader: reader)
        case .openMetaQuery, .getMetaQueryStatus, .doMetaQuery, .closeMetaQuery:
            return try await metaQuery(operation, context: context, reader: reader)
        case .putBucketReplication, .getBucketReplication, .deleteBucketReplication, .getBucketReplicationLocation,
            .getBucketReplicationProgress:
            return try await bucketReplication(operation, context: context, reader: reader)
        case .putBucketCors, .getBucketCors, .deleteBucketCors, .putBucketLifecycle, .getBucketLifecycle,
            .deleteBucketLifecycle, .putBucketReferer, .getBucketReferer, .putBucketTags, .getBucketTags,
            .deleteBucketTags, .putBucketEncryption, .getBucketEncryption, .deleteBucketEncryption, .putBucketLogging,
            .getBucketLogging, .deleteBucketLogging, .putBucketWebsite, .getBucketWebsite, .deleteBucketWebsite,
            .putBucketRequestPayment, .getBucketRequestPayment, .putBucketPolicy, .getBucketPolicy, .deleteBucketPolicy,
            .putBucketTransferAcceleration, .getBucketTransferAcceleration, .putBucketPublicAccessBlock,
            .getBucketPublicAccessBlock, .deleteBucketPublicAccessBlock, .putBucketOverwriteConfig,
            .getBucketOverwriteConfig, .deleteBucketOverwriteConfig,
            .putBucketHttpsConfig, .getBucketHttpsConfig,
            .putBucketAccessMonitor, .getBucketAccessMonitor, .putBucketArchiveDirectRead, .getBucketArchiveDirectRead,
            .putBucketResourceGroup, .getBucketResourceGroup,
            .putBucketObjectWormConfiguration, .getBucketObjectWormConfiguration:
            guard let family = BucketConfigurationFamily.serving(operation) else { throw LocalOSSError.internalError("no family") }
            return try await bucketConfiguration(operation, family, context: context, reader: reader)
        }
    }
}

extension RequestHandler {
    /// `x-oss-process` (image and video processing) is signed and authenticated like any request, but the local
    /// server does not process media: it answers 501 rather than the unprocessed object.
    func refuseImageProcessing(_ operation: LocalOSSOperation, context: RequestContext) throws(LocalOSSError) {
        guard operation == .getObject, let process = context.query["x-oss-process"] else { return }
        throw .notImplemented("x-oss-process (\(process.prefix(64))) is not implemented by the local server.")
    }
}
