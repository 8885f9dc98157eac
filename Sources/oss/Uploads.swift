/// `transform` of each of `items`, at most `width` at a time, returned in the items' order.
func mapConcurrently<Item: Sendable, Value: Sendable>(
    _ items: [Item], width: Int = 8, _ transform: @escaping @Sendable (Item) async throws -> Value
) async throws -> [Value] {
    var values = [Value?](repeating: nil, count: items.count)
    try await withThrowingTaskGroup(of: (Int, Value).self) { group in
        var next = 0
        func start() {
            guard next < items.count else { return }
            let index = next
            next += 1
            group.addTask { (index, try await transform(items[index])) }
        }
        for _ in 0..<width { start() }
        while let (index, value) = try await group.next() {
            values[index] = value
            start()
        }
    }
    return values.compactMap { $0 }
}
