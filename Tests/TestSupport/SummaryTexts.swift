/// Long texts for summaries: two topics, so that a new version of a file has another summary.
package enum SummaryTexts {
    package static let owls = """
        Owls hunt at night and find their prey by sound as much as by sight. \
        The weather was mild on Tuesday. \
        An owl's feathers have soft edges, so an owl flies almost without a sound. \
        Most owls swallow small prey whole and bring up the bones and fur as pellets. \
        Someone left a blue umbrella at the station.
        """
    package static let volcanoes = """
        Volcanoes form where molten rock rises through the crust and erupts at the surface. \
        The train was late again. \
        A volcano's shape depends on how runny its lava is and how much gas the magma holds. \
        Some volcanoes sleep for centuries before they erupt again, which makes volcano forecasts hard. \
        The bakery sells good bread.
        """
}
