"""Automatic metrics, metric submissions and their validation against human judgments."""
