extension OSSUploadStateMachine {
    /// The outcome of reconciling a record with ListParts.
    package struct Reconciliation: Sendable, Hashable {
        /// Parts the server has exactly as planned: not sent again.
        package var reused: [OSSUploadRecord.ConfirmedPart]
        /// Parts to send (again).
        package var resend: [OSSPart]
    }

    /// Decides which planned parts can be reused. The server is the truth; a part is reused only when:
    /// - the server lists it, with exactly the planned size;
    /// - if the record knows it too, with the recorded ETag, and with the recorded CRC-64 when both sides know one;
    /// - in CRC mode, a CRC-64 is known for it (from the record or the listing), so the final check covers it.
    /// Every other planned part is sent again. Listed parts outside the plan are ignored (Complete names its parts).
    package static func reconcile(
        plan: OSSPartPlan,
        recorded: [OSSUploadRecord.ConfirmedPart],
        server: [ServerPart],
        crcMode: OSSCRCMode
    ) -> Reconciliation {
        var serverByNumber: [Int: ServerPart] = [:]
        for part in server { serverByNumber[part.number] = part }
        var recordedByNumber: [Int: OSSUploadRecord.ConfirmedPart] = [:]
        for part in recorded { recordedByNumber[part.number] = part }

        var reused: [OSSUploadRecord.ConfirmedPart] = []
        var resend: [OSSPart] = []
        for part in plan.parts {
            guard let listed = serverByNumber[part.number], listed.size == part.length else {
                resend.append(part)
                continue
            }
            var crc = listed.crc64
            if let mine = recordedByNumber[part.number] {
                let sameETag = OSSObjectIdentity.normalize(etag: mine.etag) == OSSObjectIdentity.normalize(etag: listed.etag)
                let crcConflict = mine.crc64 != nil && listed.crc64 != nil && mine.crc64 != listed.crc64
                guard sameETag, !crcConflict, mine.size == part.length else {
                    resend.append(part)
                    continue
                }
                crc = mine.crc64 ?? listed.crc64
            }
            if crcMode == .enabled && crc == nil {
                resend.append(part)
                continue
            }
            reused.append(OSSUploadRecord.ConfirmedPart(number: part.number, size: part.length, crc64: crc, etag: listed.etag))
        }
        return Reconciliation(reused: reused, resend: resend)
    }
}
