extension OSSBackgroundUploadReconciler {
    /// The server as the final authority for parts whose outcome never arrived: each part in `candidates` that
    /// ListParts shows with the part's length and the CRC-64 recorded for its copy (and an ETag) is done, and is
    /// not sent again. Returns the record and the parts adopted.
    package static func adopt(
        _ record: OSSBackgroundUploadRecord, listed: [OSSUploadStateMachine.ServerPart], candidates: Set<Int>
    ) -> (record: OSSBackgroundUploadRecord, adopted: [Int]) {
        var record = record
        var adopted: [Int] = []
        let byNumber = Dictionary(listed.map { ($0.number, $0) }, uniquingKeysWith: { _, last in last })
        for index in record.parts.indices where candidates.contains(record.parts[index].number) {
            let part = record.parts[index]
            guard !part.state.isDone, let expected = part.crc64, let server = byNumber[part.number],
                server.size == part.length, server.crc64 == expected, !server.etag.isEmpty
            else { continue }
            record.parts[index].state = .done(etag: server.etag, crc64: expected)
            adopted.append(part.number)
        }
        return (record, adopted)
    }
}
