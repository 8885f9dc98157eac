/// Compares a locally computed CRC-64 with the server's, when both are known and checking is enabled.
func verifyCRC64(local: UInt64, server: UInt64?, enabled: Bool, what: String) throws {
    guard enabled, let server else { return }
    guard local == server else {
        throw OSSClientError(
            .invalidCRC, "CRC-64 mismatch for \(what): computed \(local), server reported \(server)")
    }
}

extension OSSClient {
    /// Whether a request checks CRC-64: its own `crcFlag` (the iOS per-request `crcFlag`) when set, else the
    /// client's ``OSSClientConfiguration/crcCheckEnabled``.
    func crcCheckEnabled(_ crcFlag: Bool?) -> Bool {
        crcFlag ?? configuration.crcCheckEnabled
    }
}
