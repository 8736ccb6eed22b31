"""Characters for motion: a skinned mannequin made from a clip's own skeleton
(:mod:`motioncore.character.mannequin`) and a clip on a skinned mesh as a GLB file
(:mod:`motioncore.character.glb`)."""
