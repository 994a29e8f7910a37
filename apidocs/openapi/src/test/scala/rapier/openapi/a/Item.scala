package rapier.openapi.a

/** An item of one catalogue; `rapier.openapi.b.Item` is another type of the same simple name. */
final case class Item(sku: String, price: BigDecimal)
