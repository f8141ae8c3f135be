"""`verify`: a range of commits checked rule by rule (moves, intake, logs, conservation)."""
