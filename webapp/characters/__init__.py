"""Characters: the bodies motion is shown on (the mannequin made from a skeleton)."""
