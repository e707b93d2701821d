// Copyright © 2025 Example. Fixture.
