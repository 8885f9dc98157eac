extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanosecondsValue: Int64 {
        let (seconds, attoseconds) = components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        return ns.addingReportingOverflow(attoseconds / 1_000_000_000).overflow ? .max : ns + attoseconds / 1_000_000_000
    }

    /// The duration in seconds as a floating-point number.
    var timeInterval: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
