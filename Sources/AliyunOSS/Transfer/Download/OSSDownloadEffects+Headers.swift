/// parity-b: the headers sent with every ranged GET of a resumable download.
extension OSSDownloadEffects {
    var getHeaders: [String: String] {
        (try? OSSTrafficLimit.merged(request.headers, limit: request.trafficLimit)) ?? request.headers
    }
}
