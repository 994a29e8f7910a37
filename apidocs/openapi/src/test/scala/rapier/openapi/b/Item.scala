package rapier.openapi.b

/** An item of another catalogue, named like `rapier.openapi.a.Item`. */
final case class Item(code: Int, quantity: Int)
