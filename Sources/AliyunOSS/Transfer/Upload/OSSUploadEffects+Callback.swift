import OSSResumable

/// parity-b: the upload callback of a resumable upload, kept in its checkpoint record so that a resumed or
/// transfer-manager upload still sends it on Complete.
extension OSSUploadEffects {
    /// The request's callback headers: the typed ``OSSResumableUploadRequest/callback``, else the raw
    /// `callbackParam` / `callbackVar` dictionaries; `nil` without a callback.
    static func callbackHeaders(for request: OSSResumableUploadRequest) throws -> [String: String]? {
        let headers = try OSSCallbackHeaders.make(
            typed: request.callback, parameters: request.callbackParam, variables: request.callbackVar)
        return headers.isEmpty ? nil : headers
    }

    /// Takes the loaded record's callback when the request has none (a resumed upload, e.g. by the transfer manager).
    func adoptRecordedCallback(_ loaded: OSSRecordLoadResult<OSSUploadRecord>) {
        guard callbackHeaders == nil, case .loaded(let record) = loaded,
            record.bucket == request.bucketName, record.key == request.objectKey
        else { return }
        callbackHeaders = record.callbackHeaders
    }
}

extension OSSUploadEffects {
    /// parity-b: the headers sent with every UploadPart (the request's, plus its traffic limit).
    var partHeaders: [String: String] {
        (try? OSSTrafficLimit.merged(request.partHeaders, limit: request.trafficLimit)) ?? request.partHeaders
    }
}
