extension OSSUploadStateMachine {
    /// On `NoSuchUpload` once every part is confirmed — at Complete (a retried Complete whose first answer was
    /// lost), or at ListParts for a record that confirms every part (a run that died after sending Complete) — the
    /// upload may have become the object. Asks for a HEAD when the parts' combined CRC-64 is known; `nil`
    /// otherwise (the upload is then treated as vanished).
    mutating func checkCompletedObject() -> [Action]? {
        guard let plan else { return nil }
        switch phase {
        case .completing:
            break
        case .listing:
            // Only a record that confirms the whole plan, with every CRC, can have been completed.
            let planned = Dictionary(uniqueKeysWithValues: plan.parts.map { ($0.number, $0.length) })
            guard recordedParts.count == planned.count,
                recordedParts.allSatisfy({ planned[$0.number] == $0.size && $0.crc64 != nil })
            else { return nil }
            confirmed = Dictionary(uniqueKeysWithValues: recordedParts.map { ($0.number, $0) })
            outstanding = []
            resumedBytes = confirmedBytes
        default:
            return nil
        }
        guard let crc = expectedCRC64 else { return nil }
        phase = .checkingCompletedObject
        return [.checkCompletedObject(size: plan.totalLength, crc64: crc)]
    }

    /// The HEAD answered: the object is this upload's (finish as if Complete had answered), or not (start over,
    /// as for any vanished upload).
    mutating func completedObjectChecked(matches: Bool, serverCRC64: UInt64?) -> [Action] {
        guard matches else { return uploadVanished() }
        let progress = progressActions()
        phase = .completing
        return progress + completed(serverCRC: serverCRC64)
    }
}
