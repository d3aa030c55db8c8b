"""Reading the dice: camera sources, settle detection, finding dice, face classifier."""
