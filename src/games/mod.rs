pub mod subtraction;
