extension RequestHandler {
    /// `x-oss-process` (image and video processing) is signed and authenticated like any request, but the local
    /// server does not process media: it answers 501 rather than the unprocessed object.
    func refuseImageProcessing(_ operation: LocalOSSOperation, context: RequestContext) throws(LocalOSSError) {
        guard operation == .getObject, let process = context.query["x-oss-process"] else { return }
        throw .notImplemented("x-oss-process (\(process.prefix(64))) is not implemented by the local server.")
    }
}
