import OSSResumable

extension OSSResumeToken {
    /// The token's upload record, once it is known to belong to the upload described by the arguments.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first field that differs (a download token, another
    ///   bucket, key, local file, part size or CRC mode), or when the record makes no sense.
    func uploadRecord(
        bucket: String, key: String, filePath: String, requestedPartSize: Int64, crcMode: OSSCRCMode
    ) throws -> OSSUploadRecord {
        guard case .upload(let record) = self.record else {
            throw OSSClientError(.invalidArgument, "the resume token is for a download, not an upload")
        }
        try Self.check(
            record, belongsTo: "upload",
            ("object", "oss://\(record.bucket)/\(record.key)", "oss://\(bucket)/\(key)"),
            ("local file", record.filePath, filePath),
            ("part size", String(record.requestedPartSize), String(requestedPartSize)),
            ("CRC mode", record.crcMode.rawValue, crcMode.rawValue))
        return record
    }

    /// The token's download record, once it is known to belong to the download described by the arguments. The
    /// part size is not compared: a resumed download keeps the part size of its record.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first field that differs (an upload token, another
    ///   bucket, key, destination, range or CRC mode), or when the record makes no sense.
    func downloadRecord(
        bucket: String, key: String, destinationPath: String, requestedRange: OSSRequestedRange?, crcMode: OSSCRCMode
    ) throws -> OSSDownloadRecord {
        guard case .download(let record) = self.record else {
            throw OSSClientError(.invalidArgument, "the resume token is for an upload, not a download")
        }
        try Self.check(
            record, belongsTo: "download",
            ("object", "oss://\(record.bucket)/\(record.key)", "oss://\(bucket)/\(key)"),
            ("destination", record.destinationPath, destinationPath),
            ("range", record.requestedRange?.description ?? "whole object", requestedRange?.description ?? "whole object"),
            ("CRC mode", record.crcMode.rawValue, crcMode.rawValue))
        return record
    }

    /// Checks that `record` makes sense and that each field (its name, the token's value, the request's value) is the
    /// same in the token and the request; the error names the first field that differs: "FIELD is TOKEN in the
    /// token but REQUEST in the request".
    private static func check<Record: OSSTransferRecord>(
        _ record: Record, belongsTo transfer: String, _ fields: (name: String, token: String, request: String)...
    ) throws {
        do {
            try record.validate()
        } catch {
            throw OSSClientError(.invalidArgument, "the resume token's record is invalid: \(error)", underlying: error)
        }
        for field in fields where field.token != field.request {
            throw OSSClientError(
                .invalidArgument,
                "the resume token does not belong to this \(transfer): \(field.name) is \(field.token) in the token but \(field.request) in the request"
            )
        }
    }
}

extension OSSResumeToken {
    /// `record` with its relative paths resolved against `base`.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when it holds relative paths and there is no base directory.
    static func resolving<Record: OSSTransferRecord>(_ record: Record, against base: OSSBaseDirectory?) throws -> Record {
        do {
            return try record.resolved(against: base)
        } catch {
            throw OSSClientError(
                .invalidArgument,
                "the resume token's paths are relative to a base directory; give baseDirectoryURL: \(error)",
                underlying: error)
        }
    }
}
