"""Who may do what: users and their roles, passwords, upload tokens and the sign-in throttle
(:mod:`.auth`); the store keeps them (:mod:`leaderboard.storage`)."""
