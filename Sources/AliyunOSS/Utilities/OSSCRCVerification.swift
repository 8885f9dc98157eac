/// Compares a locally computed CRC-64 with the server's, when both are known and checking is enabled.
func verifyCRC64(local: UInt64, server: UInt64?, enabled: Bool, what: String) throws {
    guard enabled, let server else { return }
    guard local == server else {
        throw OSSClientError(
            .invalidCRC, "CRC-64 mismatch for \(what): computed \(local), server reported \(server)")
    }
}
