//! Shared application state: the map of values set once on the server
//! builder, keyed by type, and the [`StateRequirement`] a handler declares
//! on a type in it, checked when the server is built.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::sync::Arc;

/// Shared application state, keyed by type, set once on the server builder.
#[derive(Clone, Default)]
pub(crate) struct StateMap(Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>);

impl StateMap {
    pub(crate) fn from_map(map: HashMap<TypeId, Arc<dyn Any + Send + Sync>>) -> Self {
        StateMap(Arc::new(map))
    }

    pub(crate) fn get<T: Clone + Send + Sync + 'static>(&self) -> Option<T> {
        self.0.get(&TypeId::of::<T>()).and_then(|v| v.downcast_ref::<T>()).cloned()
    }

    pub(crate) fn contains(&self, id: TypeId) -> bool {
        self.0.contains_key(&id)
    }
}

/// A state type a handler needs, checked when the server is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateRequirement {
    /// The type's id.
    pub type_id: TypeId,
    /// The type's name, for the startup error.
    pub type_name: &'static str,
}

impl StateRequirement {
    /// The requirement for state of type `T`.
    pub fn of<T: 'static>() -> Self {
        StateRequirement { type_id: TypeId::of::<T>(), type_name: type_name::<T>() }
    }
}
