extension RequestHandler {
    /// The address clients reached this server at (the request's `Host`, without a virtual-host bucket label),
    /// reported as a bucket's extranet and intranet endpoint so that a client following it comes back here.
    func servedEndpoint(_ context: RequestContext) -> String {
        guard let host = context.header("host"), !host.isEmpty else { return extranetEndpoint }
        if let bucket = context.bucket, host.lowercased().hasPrefix(bucket + ".") {
            return String(host.dropFirst(bucket.count + 1))
        }
        return host
    }
}
